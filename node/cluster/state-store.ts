/**
 * The cluster state on disk: one record in the node's `cluster` area (engine.records('cluster')),
 * as JSON, so every node (not only the master) starts again from the newest version it had.
 */
import type { NodeRecords } from '../../storage/node-records';
import { EMPTY_STATE, parseClusterState, type ClusterState } from './cluster-state';

const STATE_KEY = 'state';

export async function loadClusterState(records: NodeRecords): Promise<ClusterState> {
  const stored = await records.get(STATE_KEY);
  if (stored === null) return EMPTY_STATE;
  try {
    return parseClusterState(JSON.parse(stored.toString('utf8')));
  } catch (error) {
    throw new Error(`the stored cluster state (records area ${records.area}) cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Resolves once the state is durable. */
export async function saveClusterState(records: NodeRecords, state: ClusterState): Promise<void> {
  await records.put(STATE_KEY, Buffer.from(JSON.stringify(state), 'utf8'));
}
