/**
 * The body of GET /cluster/status on a node in a cluster, from membership: each member as this
 * node sees it (state, last heartbeat, ring epochs, the counts its last heartbeat reply carried)
 * and the counts summed over the members that are up, and which of them are catching up
 * (catch-up.ts); and the degraded part of this node's /health. A lone node answers as before
 * (routes/ops/cluster-status.ts).
 */
import path from 'path';
import { isUserIndexName } from '../../storage/core/event';
import type { StoredAlone } from './cluster-state';
import type { RingEpoch } from './epochs';
import type { MasterView, Membership, MemberView } from './membership';

export interface ClusterStatusInput {
  stateVersion: number;
  /** The seeds' gRPC addresses a forming cluster still waits for; empty once formed. */
  forming: readonly string[];
  epochs: readonly RingEpoch[];
  /** What members stored alone before they joined (stored-alone.ts); none when absent. */
  storedAlone?: readonly StoredAlone[];
  /** cluster.replication_factor. */
  replicationFactor: number;
  members: readonly MemberView[];
  master: MasterView;
  /** This node's data dir. */
  dataDir: string;
  /** Whether a node is not asked for its keys now (CatchUp.mayAsk); none is when absent. */
  catchingUp?: (id: string) => boolean;
  /** Now (ms since the epoch): epochs that start later are pending. */
  nowMs?: number;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function clusterStatus(input: ClusterStatusInput): Record<string, unknown> {
  const live = input.members.filter((view) => view.up);
  const indexes = new Set<string>();
  let segments = 0;
  let bufferedBytes = 0;
  let bufferedEvents = 0;
  for (const { stats } of live) {
    if (stats === null) continue;
    // The audit log's index is the server's own: not counted.
    for (const index of stats.indexes) if (isUserIndexName(index)) indexes.add(index);
    segments += stats.segments;
    bufferedBytes += stats.bufferedBytes;
    bufferedEvents += stats.bufferedEvents;
  }
  const catchingUp = (view: MemberView): boolean => view.up && (input.catchingUp?.(view.member.id) ?? false);
  // A removed node is on its way out: its being down does not make the cluster degraded.
  const healthy = input.members.every((view) => view.removed || (view.up && !catchingUp(view)));
  const nowMicros = (input.nowMs ?? Date.now()) * 1000;
  // Its events from before it joined, which it alone answers for: their indexes and time range.
  const storedAloneOf = (id: string): Record<string, unknown> | null => {
    const alone = input.storedAlone?.find((each) => each.node === id);
    return alone === undefined
      ? null
      : {
          indexes: alone.indexes.filter(isUserIndexName),
          from: iso(Math.floor(alone.fromMicros / 1000)),
          to: iso(Math.floor(alone.toMicros / 1000)),
        };
  };
  return {
    // Forming first: until the seeds joined, ingest is refused whatever the members' state.
    status: input.forming.length > 0 ? 'forming' : healthy ? 'healthy' : 'degraded',
    mode: 'cluster',
    node_count: input.members.length,
    replication_factor: input.replicationFactor,
    state_version: input.stateVersion,
    // Ingest is refused (503 CLUSTER_FORMING) until every seed has joined or the master stopped waiting.
    forming: [...input.forming],
    // Decided but not yet placing data: a join or remove takes effect from `starts_at` (docs/api.md).
    pending_epochs: input.epochs
      .filter((epoch) => epoch.fromMicros > nowMicros)
      .map((epoch) => ({ epoch: epoch.epoch, starts_at: iso(Math.floor(epoch.fromMicros / 1000)), members: [...epoch.members] })),
    master: { id: input.master.id, grpc_address: input.master.address, up: input.master.up },
    nodes: input.members.map((view) => {
      // Counts of a node that is down would be stale: unknown until it answers again.
      const stats = view.up ? view.stats : null;
      return {
        id: view.member.id,
        address: view.member.http,
        grpc_address: view.member.grpc,
        role: view.member.role,
        state: view.up ? 'up' : 'down',
        // Up, but not asked for its keys: writes it missed are still to be replayed to it (docs/api.md).
        catching_up: catchingUp(view),
        last_heartbeat: iso(view.lastHeartbeatMs),
        master: view.member.grpc === input.master.address,
        removed: view.removed,
        epochs: view.epochs,
        stored_alone: storedAloneOf(view.member.id),
        events: stats?.events ?? null,
        segments: stats?.segments ?? null,
        buffered_events: stats?.bufferedEvents ?? null,
        storage_bytes: stats?.storageBytes ?? null,
      };
    }),
    // Distinct index names over the nodes that are up: with replication one index lives on several nodes.
    index_count: indexes.size,
    segment_count: segments,
    buffered_size: bufferedBytes,
    buffered_events: bufferedEvents,
    data_dir: path.resolve(input.dataDir),
  };
}

/** The status as `membership` sees the cluster now (what the route answers when the node is clustered). */
export function membershipStatus(
  membership: Membership,
  options: Pick<ClusterStatusInput, 'dataDir' | 'replicationFactor' | 'catchingUp'>,
): Record<string, unknown> {
  const { version, forming, epochs, storedAlone } = membership.state();
  return clusterStatus({
    ...options,
    stateVersion: version,
    forming,
    epochs,
    storedAlone,
    members: membership.members(),
    master: membership.master(),
  });
}

/**
 * The degraded part of a clustered node's /health: degraded while it catches up (`catchingUp`,
 * CatchUp.catchingUp's reason) or a member not removed is down, with the reasons in words.
 */
export function clusterHealth(
  members: readonly MemberView[],
  catchingUp: string | null,
): { degraded: boolean; catching_up: boolean; down_nodes: string[]; reasons: string[] } {
  const down = members.filter((view) => !view.up && !view.removed).map((view) => view.member.id);
  const reasons = [
    ...(catchingUp === null ? [] : [catchingUp]),
    ...down.map((id) => `node ${id} is down (not heard from within cluster.failure_timeout)`),
  ];
  return { degraded: reasons.length > 0, catching_up: catchingUp !== null, down_nodes: down, reasons };
}
