/**
 * Which node answers for which partition key. Every key in range is asked of exactly one of its
 * owners (replicas hold the same rows: asking two would count them twice), chosen among the
 * owners that can answer (up, and holding every write for the key: no hints pending for it), so
 * that the keys spread over the replicas. A key with no such owner is missing: the answer says it
 * is partial rather than quietly counting less.
 */

export interface KeyAssignment {
  /** Node id -> the keys it answers for. */
  byNode: Map<string, string[]>;
  /** Keys no owner can answer for. */
  missing: string[];
}

/**
 * A key's storage group (node/cluster/storage-groups.ts names it): the keys of one piece in one
 * group are stored in one segment on each of their owners.
 */
export type GroupOfKey = (key: string) => string;

/**
 * `owners(key)`: the key's owner node ids, in ring order. `usable(node, key)`: whether the node can
 * answer for the key now. `group(key)`: its storage group (by default its owner set). The keys of
 * one storage group of a piece go to one owner together: each owner stores them in one segment
 * (storage/segment/segment-keys.ts) and can read them all or none. Groups are taken in the order
 * of their first key (keys sorted), and each goes to the owner that can answer for all of its keys
 * with the fewest keys so far (ties by ring order), so the result depends only on the inputs. A
 * group no single owner can answer for whole is assigned key by key the same way; a key with no
 * usable owner is missing.
 */
export function assignKeys(
  keys: Iterable<string>,
  owners: (key: string) => readonly string[],
  usable: (node: string, key: string) => boolean,
  group: GroupOfKey = (key) => ownerSetOf(owners(key)),
): KeyAssignment {
  const byNode = new Map<string, string[]>();
  const missing: string[] = [];
  /** Gives `given` to the usable owner of all of them with the fewest keys; false when there is none. */
  const assignWhole = (given: readonly string[]): boolean => {
    let chosen: string | null = null;
    let load = Infinity;
    for (const node of owners(given[0]!)) {
      if (!given.every((key) => usable(node, key))) continue;
      const assigned = byNode.get(node)?.length ?? 0;
      if (assigned < load) {
        chosen = node;
        load = assigned;
      }
    }
    if (chosen === null) return false;
    let list = byNode.get(chosen);
    if (list === undefined) byNode.set(chosen, (list = []));
    list.push(...given);
    return true;
  };
  for (const keysOfGroup of storageGroups([...new Set(keys)].sort(), group)) {
    if (assignWhole(keysOfGroup)) continue;
    for (const key of keysOfGroup) if (!assignWhole([key])) missing.push(key);
  }
  return { byNode, missing };
}

/** An owner list's members, sorted: kept per list, as a coordinator's lists are kept between queries (placement-memo.ts). */
const ownerSets = new WeakMap<readonly string[], string>();

function ownerSetOf(owners: readonly string[]): string {
  let set = ownerSets.get(owners);
  if (set === undefined) ownerSets.set(owners, (set = [...owners].sort().join(',')));
  return set;
}

/**
 * The storage group of a partition with these owners: the owner set, and with `shares` above 1
 * the partition modulo `shares` (node/cluster/storage-groups.ts says when a set is split).
 */
export function storageGroupName(partition: number, owners: readonly string[], shares: number): string {
  return `${ownerSetOf(owners)}/${shares <= 1 ? 0 : Math.abs(partition % shares)}`;
}

/** Sorted keys grouped by piece (`index|bucket`, keyString less the partition) and storage group, in the order of each group's first key. */
function storageGroups(sorted: readonly string[], group: GroupOfKey): string[][] {
  const groups = new Map<string, string[]>();
  for (const key of sorted) {
    const name = `${key.slice(0, key.lastIndexOf('|'))}|${group(key)}`;
    const keysOfGroup = groups.get(name);
    if (keysOfGroup === undefined) groups.set(name, [key]);
    else keysOfGroup.push(key);
  }
  return [...groups.values()];
}

/** What assignKeys reads of a query's view of the cluster (scatter-gather.ts ClusterView). */
export interface AssigningView {
  owners(key: string): readonly string[];
  usable(node: string, key: string): boolean;
  group?: GroupOfKey;
  /**
   * The assignment of `keys` as assignKeys gives it with this view's owners, usable and group,
   * where the view keeps it from an earlier query (null: compute it).
   */
  keptAssignment?(keys: Iterable<string>): KeyAssignment | null;
}

/**
 * A query's first assignment of its keys (no node failed yet): the view's kept one, or assignKeys.
 * A coordinator asks the same range of the same cluster query after query (a dashboard, a tail's
 * refresh), and over a week of hour buckets the assignment of its thousands of keys costs more
 * than the query a node answers from its blooms.
 */
export function assignView(view: AssigningView, keys: Iterable<string>): KeyAssignment {
  return (
    view.keptAssignment?.(keys) ??
    assignKeys(
      keys,
      (key) => view.owners(key),
      (node, key) => view.usable(node, key),
      view.group,
    )
  );
}

/**
 * The keys of a failed node given again to their other usable owners (the failed node excluded):
 * what a coordinator does when a shard fails in the middle of a query.
 */
export function reassignKeys(
  failed: string,
  keys: readonly string[],
  owners: (key: string) => readonly string[],
  usable: (node: string, key: string) => boolean,
  group?: GroupOfKey,
): KeyAssignment {
  return assignKeys(keys, owners, (node, key) => node !== failed && usable(node, key), group);
}
