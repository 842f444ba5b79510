/**
 * What a node stored alone before it became a member of a cluster. Those events were placed by
 * no ring, so before the node's first join they are set apart under keys of their own: the
 * partition of every such key is negative and the node's own (storedAlonePartition), and the
 * cluster state records it with the events' indexes and time range (ClusterState.storedAlone).
 * That node alone owns those keys: queries through any node ask it for them, and say
 * `meta.partial` when it cannot answer. New events are placed over the whole cluster as usual.
 * So one node grows into a cluster without moving or losing anything.
 */
import type { StorageEngine } from '../../storage/engine';
import { fnv1a32, keyString, type PartitionKey } from '../../storage/core/partition';
import type { ClusterState, StoredAlone } from './cluster-state';
import { bucketsInRange } from './key-range';
import { ownersOf } from './ring';

/** The partition of a node's stored-alone keys: negative, from its id (a clash between two nodes is refused at join). */
export function storedAlonePartition(nodeId: string): number {
  return -1 - (fnv1a32(`stored-alone\u0000${nodeId}`) & 0x3fffffff);
}

/**
 * Run before a node's first join (its cluster state is empty): sets every event it holds apart
 * under its stored-alone partition and describes them; null when it holds none. A run that
 * crashed before the join is run again at the next start and moves nothing more.
 */
export async function setApartStoredAlone(engine: StorageEngine, nodeId: string): Promise<StoredAlone | null> {
  const partition = storedAlonePartition(nodeId);
  if (engine.stats().totalEvents > 0) await engine.setApart(partition);
  const held = engine.heldUnder(partition);
  return held === null ? null : { node: nodeId, partition, indexes: held.indexes, fromMicros: held.fromMicros, toMicros: held.toMicros };
}

/** The owners of a key: for a stored-alone key the node that stored it, else the ring's (ring.ts ownersOf). */
export function ownersOfKey(key: PartitionKey, state: ClusterState, replicationFactor: number): string[] {
  if (key.partition >= 0) return ownersOf(key, state.epochs, replicationFactor);
  const alone = state.storedAlone.find((each) => each.partition === key.partition);
  return alone === undefined ? [] : [alone.node];
}

/**
 * The stored-alone keys of `indexes` whose bucket overlaps `[fromMicros, toMicros)`: every
 * bucket of an entry's time range in the range, for each of its indexes asked.
 */
export function storedAloneKeys(
  state: ClusterState,
  indexes: readonly string[],
  fromMicros: number,
  toMicros: number,
  bucketSpanMicros: number,
): string[] {
  const keys: string[] = [];
  const asked = new Set(indexes);
  for (const alone of state.storedAlone) {
    const names = alone.indexes.filter((name) => asked.has(name));
    if (names.length === 0) continue;
    for (const bucket of bucketsInRange(Math.max(fromMicros, alone.fromMicros), Math.min(toMicros, alone.toMicros + 1), bucketSpanMicros)) {
      for (const index of names) keys.push(keyString({ index, bucket, partition: alone.partition }));
    }
  }
  return keys;
}
