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
 * answer for the key now. Keys are taken in sorted order and each goes to its usable owner with the
 * fewest keys so far (ties by ring order), so the result depends only on the inputs.
 */
export function assignKeys(
  keys: Iterable<string>,
  owners: (key: string) => readonly string[],
  usable: (node: string, key: string) => boolean,
): KeyAssignment {
  const byNode = new Map<string, string[]>();
  const missing: string[] = [];
  for (const key of [...new Set(keys)].sort()) {
    let chosen: string | null = null;
    let load = Infinity;
    for (const node of owners(key)) {
      if (!usable(node, key)) continue;
      const assigned = byNode.get(node)?.length ?? 0;
      if (assigned < load) {
        chosen = node;
        load = assigned;
      }
    }
    if (chosen === null) missing.push(key);
    else {
      let list = byNode.get(chosen);
      if (list === undefined) byNode.set(chosen, (list = []));
      list.push(key);
    }
  }
  return { byNode, missing };
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
