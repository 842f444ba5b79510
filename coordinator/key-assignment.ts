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
 * owners and share) go to one owner together: each owner stores them in one segment
 * (storage/segment/segment-keys.ts) and can read them all or none. Where a piece has keys of
 * several owner sets, every share of one owner set goes to one owner too, so that a node reads
 * one segment of the piece rather than two; where all its keys have the same owners (replication
 * n over n nodes), its shares go to different owners, so that one bucket still spreads. Such units
 * are taken in the order of their first key (keys sorted), and each goes to the owner that can
 * answer for all of its keys with the fewest keys so far (ties by ring order), so the result
 * depends only on the inputs. A unit no single owner can answer for whole is assigned by storage
 * group, and a group so by key, the same way; a key with no usable owner is missing.
 */
export function assignKeys(
  keys: Iterable<string>,
  owners: (key: string) => readonly string[],
  usable: (node: string, key: string) => boolean,
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
  for (const unit of assignmentUnits([...new Set(keys)].sort(), owners)) {
    if (assignWhole(unit.keys)) continue;
    for (const group of unit.groups) {
      if (assignWhole(group)) continue;
      for (const key of group) if (!assignWhole([key])) missing.push(key);
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

/** Keys asked of one owner together: one or more storage groups of a piece. */
interface AssignmentUnit {
  keys: string[];
  groups: string[][];
}

/**
 * Sorted keys as assignment units (see assignKeys), in the order of each unit's first key: per
 * piece (`index|bucket`, keyString less the partition), its owner sets, each with its storage
 * groups; or, where a piece has one owner set, its storage groups alone.
 */
function assignmentUnits(sorted: readonly string[], owners: (key: string) => readonly string[]): AssignmentUnit[] {
  /** Piece -> owner set -> storage group -> keys, each in the order of its first key. */
  const pieces = new Map<string, Map<string, Map<string, string[]>>>();
  for (const key of sorted) {
    const cut = key.lastIndexOf('|');
    const piece = key.slice(0, cut);
    const ownerList = owners(key);
    let sets = pieces.get(piece);
    if (sets === undefined) pieces.set(piece, (sets = new Map()));
    const set = ownerSetOf(ownerList);
    let groups = sets.get(set);
    if (groups === undefined) sets.set(set, (groups = new Map()));
    const group = storageGroupName(Number(key.slice(cut + 1)), ownerList);
    const keysOfGroup = groups.get(group);
    if (keysOfGroup === undefined) groups.set(group, [key]);
    else keysOfGroup.push(key);
  }
  const units: AssignmentUnit[] = [];
  for (const sets of pieces.values()) {
    for (const groups of sets.values()) {
      const lists = [...groups.values()];
      if (sets.size === 1) units.push(...lists.map((keys) => ({ keys, groups: [keys] })));
      else units.push({ keys: lists.flat(), groups: lists });
    }
  }
  return units.sort((a, b) => (a.keys[0]! < b.keys[0]! ? -1 : 1));
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
