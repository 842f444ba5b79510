/**
 * Which cluster state may follow the one a node holds. Only the master decides a version, one
 * operation each (a join, a remove, the end of forming), and no operation takes a member, a removed
 * id or a ring epoch away. So a state `k` versions newer holds every member of the older one at the
 * same gRPC address, every removed id and every ring epoch unchanged (an epoch's nodes change only
 * while the cluster forms), waits for no seed the older one did not, and adds at most `k` members,
 * removed ids, epochs and stored-alone entries (which never change either). A state that breaks this was not decided by the master from this one.
 * The rules of who may send a state are in membership.ts and docs/architecture.md.
 */
import { memberById, quoted, type ClusterState } from './cluster-state';

/** Why `next` cannot follow `held` (null: it can); `next` is newer. */
export function successionProblem(held: ClusterState, next: ClusterState): string | null {
  const steps = next.version - held.version;
  if (held.version === 0) return null;
  for (const member of held.members) {
    const kept = memberById(next, member.id);
    if (kept === undefined) return `v${next.version} drops member ${member.id}, and no operation takes a member out of the state`;
    if (kept.grpc !== member.grpc) return `v${next.version} moves member ${member.id} from ${member.grpc} to ${quoted(kept.grpc)}`;
  }
  const dropped = held.removed.find((id) => !next.removed.includes(id));
  if (dropped !== undefined) return `v${next.version} takes back the removal of ${dropped}`;
  for (const epoch of held.epochs) {
    const kept = next.epochs.find((each) => each.epoch === epoch.epoch);
    if (kept === undefined) return `v${next.version} drops ring epoch ${epoch.epoch}`;
    const sameRing = held.forming.length > 0 || kept.members.join(',') === epoch.members.join(',');
    if (kept.fromMicros !== epoch.fromMicros || !sameRing) return `v${next.version} rewrites ring epoch ${epoch.epoch}`;
  }
  for (const alone of held.storedAlone) {
    const kept = next.storedAlone.find((each) => each.node === alone.node);
    if (kept === undefined || JSON.stringify(kept) !== JSON.stringify(alone)) return `v${next.version} drops or rewrites what node ${alone.node} stored alone`;
  }
  const newlyAwaited = next.forming.find((seed) => !held.forming.includes(seed));
  if (newlyAwaited !== undefined) return `v${next.version} waits for the seed ${quoted(newlyAwaited)}, which v${held.version} did not`;
  const added = {
    members: next.members.length - held.members.length,
    'removed ids': next.removed.length - held.removed.length,
    'ring epochs': next.epochs.length - held.epochs.length,
    'stored-alone entries': next.storedAlone.length - held.storedAlone.length,
  };
  for (const [what, count] of Object.entries(added)) {
    if (count > steps) return `v${next.version} adds ${count} ${what} to v${held.version}; ${steps} version${steps === 1 ? '' : 's'} add at most ${steps}`;
  }
  return null;
}

/** Whether two states are the same version with the same content. */
export function sameState(a: ClusterState, b: ClusterState): boolean {
  const canonical = (state: ClusterState): string =>
    JSON.stringify([
      state.version,
      state.members.map((member) => [member.id, member.http, member.grpc, member.role]),
      state.epochs.map((epoch) => [epoch.epoch, epoch.fromMicros, epoch.members]),
      state.removed,
      state.forming,
      state.storedAlone,
    ]);
  return canonical(a) === canonical(b);
}
