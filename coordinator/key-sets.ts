/**
 * A fragment's keys as the set a scan filters segments by. A coordinator sends the same frozen
 * key lists query after query while its assignment is kept (node/cluster/placement-memo.ts), and
 * a node keeps the lists of the key runs it is sent (node/cluster/shard-query-wire.ts); a month
 * of hour buckets is thousands of keys, whose set costs more than a query its blooms answer. A
 * frozen list cannot change, so its set is made once; any other list gets a set of its own.
 */
const setsOfFrozenLists = new WeakMap<readonly string[], ReadonlySet<string>>();

export function keySetOf(keys: readonly string[]): ReadonlySet<string> {
  if (!Object.isFrozen(keys)) return new Set(keys);
  let set = setsOfFrozenLists.get(keys);
  if (set === undefined) setsOfFrozenLists.set(keys, (set = new Set(keys)));
  return set;
}
