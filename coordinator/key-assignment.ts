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
 * `owners(key)`: the key's owner node ids, in ring order. `usable(node, key)`: whether the node can
 * answer for the key now. The keys of one storage group of a piece (storageGroupName: the same
 * owners) go to one owner together: each owner stores them in one segment
 * (storage/segment/segment-keys.ts) and can read them all or none. Such groups are taken in the
 * order of their first key (keys sorted), and each goes to the owner that can answer for all of
 * its keys with the fewest keys so far (ties by ring order), so the result depends only on the
 * inputs. A group no single owner can answer for whole is assigned key by key the same way; a
 * key with no usable owner is missing.
 */
export function assignKeys(
  keys: Iterable<string>,
  owners: (key: string) => readonly string[],
  usable: (node: string, key: string) => boolean,
): KeyAssignment {
  const byNode = new Map<string, string[]>();
  const missing: string[] = [];
  const give = (node: string, given: readonly string[]): void => {
    let list = byNode.get(node);
    if (list === undefined) byNode.set(node, (list = []));
    list.push(...given);
  };
  const leastLoaded = (candidates: readonly string[], canAnswer: (node: string) => boolean): string | null => {
    let chosen: string | null = null;
    let load = Infinity;
    for (const node of candidates) {
      if (!canAnswer(node)) continue;
      const assigned = byNode.get(node)?.length ?? 0;
      if (assigned < load) {
        chosen = node;
        load = assigned;
      }
    }
    return chosen;
  };
  for (const group of storageGroups([...new Set(keys)].sort(), owners)) {
    const whole = leastLoaded(owners(group[0]!), (node) => group.every((key) => usable(node, key)));
    if (whole !== null) {
      give(whole, group);
      continue;
    }
    for (const key of group) {
      const chosen = leastLoaded(owners(key), (node) => usable(node, key));
      if (chosen === null) missing.push(key);
      else give(chosen, [key]);
    }
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
 * The storage group of a partition of a piece with these owners (node/cluster/storage-groups.ts
 * stores by it): the owner set, and the partition modulo the number of owners. The second part
 * gives each owner of a set a share of a piece to answer for: at replication n over n nodes every
 * node owns every partition, and one group a piece would leave all but one node idle on a query
 * over one bucket.
 */
export function storageGroupName(partition: number, owners: readonly string[]): string {
  return `${ownerSetOf(owners)}/${owners.length === 0 ? 0 : Math.abs(partition % owners.length)}`;
}

/**
 * Sorted keys grouped by piece (`index|bucket`, keyString less the partition) and storage group,
 * in the order of each group's first key.
 */
function storageGroups(sorted: readonly string[], owners: (key: string) => readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const key of sorted) {
    const cut = key.lastIndexOf('|');
    const name = `${key.slice(0, cut)}|${storageGroupName(Number(key.slice(cut + 1)), owners(key))}`;
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [key]);
    else group.push(key);
  }
  return [...groups.values()];
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
): KeyAssignment {
  return assignKeys(keys, owners, (node, key) => node !== failed && usable(node, key));
}
