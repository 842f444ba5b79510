/**
 * Which cluster state may follow the one a node holds. Only the master decides a version, one
 * operation each (a join, a remove, a forget, the end of forming), and only a forget takes a member
 * (and its removed id) away, recording it in `forgotten`, which never shrinks. So a state `k`
 * versions newer holds every member of the older one at the same gRPC address unless it records
 * it newly forgotten, every removed id but those, every forgotten record, every ring epoch and
 * every stored-alone entry unchanged (an epoch's nodes change only while the cluster forms), waits
 * for no seed the older one did not, and adds at most `k` members, removed ids, forgotten records,
 * epochs and stored-alone entries. A state that breaks this was not decided by the master from this one.
 * The rules of who may send a state are in membership-service.ts and docs/architecture.md.
 */
import { memberById, quoted, type ClusterState } from './cluster-state';

/** Why `next` cannot follow `held` (null: it can); `next` is newer. */
export function successionProblem(held: ClusterState, next: ClusterState): string | null {
  const steps = next.version - held.version;
  if (held.version === 0) return null;
  const keptForgotten = held.forgotten.every((each, i) => JSON.stringify(next.forgotten[i]) === JSON.stringify(each));
  if (!keptForgotten) return `v${next.version} rewrites the record of forgotten nodes`;
  const newlyForgotten = new Set(next.forgotten.slice(held.forgotten.length).map((each) => each.id));
  for (const member of held.members) {
    const kept = memberById(next, member.id);
    // A forgotten node may join again as a new node within the same steps.
    if (kept === undefined && !newlyForgotten.has(member.id))
      return `v${next.version} drops member ${member.id} without recording it forgotten`;
    if (kept !== undefined && kept.grpc !== member.grpc && !newlyForgotten.has(member.id))
      return `v${next.version} moves member ${member.id} from ${member.grpc} to ${quoted(kept.grpc)}`;
  }
  const dropped = held.removed.find((id) => !next.removed.includes(id) && !newlyForgotten.has(id));
  if (dropped !== undefined) return `v${next.version} takes back the removal of ${dropped}`;
  // One version on, a forget takes only a removed node (further on, the removal may lie between).
  const forgottenUp =
    steps === 1 ? [...newlyForgotten].find((id) => !held.removed.includes(id) && memberById(held, id) !== undefined) : undefined;
  if (forgottenUp !== undefined) return `v${next.version} forgets ${forgottenUp}, which was not removed`;
  for (const epoch of held.epochs) {
    const kept = next.epochs.find((each) => each.epoch === epoch.epoch);
    if (kept === undefined) return `v${next.version} drops ring epoch ${epoch.epoch}`;
    // While the cluster forms nothing is placed yet: a seed that joins enters epoch 0, and one of a release before layouts takes its layout away.
    const sameRing = held.forming.length > 0 || (kept.members.join(',') === epoch.members.join(',') && kept.layout === epoch.layout);
    if (kept.fromMicros !== epoch.fromMicros || !sameRing) return `v${next.version} rewrites ring epoch ${epoch.epoch}`;
  }
  for (const alone of held.storedAlone) {
    const kept = next.storedAlone.find((each) => each.node === alone.node);
    if (kept === undefined || JSON.stringify(kept) !== JSON.stringify(alone))
      return `v${next.version} drops or rewrites what node ${alone.node} stored alone`;
  }
  const newlyAwaited = next.forming.find((seed) => !held.forming.includes(seed));
  if (newlyAwaited !== undefined) return `v${next.version} waits for the seed ${quoted(newlyAwaited)}, which v${held.version} did not`;
  const added = {
    members: next.members.length - held.members.length,
    'removed ids': next.removed.length - held.removed.length,
    'ring epochs': next.epochs.length - held.epochs.length,
    'stored-alone entries': next.storedAlone.length - held.storedAlone.length,
    'forgotten nodes': next.forgotten.length - held.forgotten.length,
  };
  for (const [what, count] of Object.entries(added)) {
    if (count > steps)
      return `v${next.version} adds ${count} ${what} to v${held.version}; ${steps} version${steps === 1 ? '' : 's'} add at most ${steps}`;
  }
  return null;
}

/** Whether two states are the same version with the same content. */
export function sameState(a: ClusterState, b: ClusterState): boolean {
  const canonical = (state: ClusterState): string =>
    JSON.stringify([
      state.version,
      state.members.map((member) => [member.id, member.http, member.grpc, member.role]),
      state.epochs.map((epoch) => [epoch.epoch, epoch.fromMicros, epoch.members, epoch.layout ?? null]),
      state.removed,
      state.forming,
      state.storedAlone,
      state.forgotten.map((each) => [each.id, each.throughEpoch, each.storedAlone]),
    ]);
  return canonical(a) === canonical(b);
}
