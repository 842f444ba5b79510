/**
 * A query's `from` globs resolved by the coordinator, and the check each node makes of that list.
 * Resolving them from the index names the members' heartbeats carry lets the coordinator place a
 * glob query's keys as it places a named index's (no round trip asking every node for its keys
 * first); a node holding an index the coordinator had not heard of yet refuses its fragment, and
 * the query asks the nodes instead.
 */
import { isGlob } from '../storage/glob';
import { indexMatcher } from '../storage/scan';
import { IndexesUnlistedError } from './scatter-gather';

/** Whether any of a query's `from` patterns is a glob (`*` included). */
export function hasGlob(patterns: readonly string[]): boolean {
  return patterns.some(isGlob);
}

/**
 * The index names `patterns` stand for among `known`, sorted: every name a pattern spells out
 * (it is placed whether or not anyone reported it, as a query naming it is), and every known name
 * a glob matches.
 */
export function listIndexes(patterns: readonly string[], known: Iterable<string>): string[] {
  const names = new Set(patterns.filter((pattern) => !isGlob(pattern)));
  const matches = indexMatcher(patterns);
  for (const name of known) if (matches(name)) names.add(name);
  return [...names].sort();
}

/** The names in `held` that `patterns` match and `listed` lacks, sorted. */
export function unlistedIndexes(patterns: readonly string[], listed: readonly string[], held: Iterable<string>): string[] {
  const matches = indexMatcher(patterns);
  const known = new Set(listed);
  const unlisted: string[] = [];
  for (const name of held) if (matches(name) && !known.has(name)) unlisted.push(name);
  return unlisted.sort();
}

/** Throws IndexesUnlistedError when this node holds an index `patterns` match that `listed` lacks. */
export function checkListedIndexes(patterns: readonly string[], listed: readonly string[], held: Iterable<string>): void {
  const unlisted = unlistedIndexes(patterns, listed, held);
  if (unlisted.length > 0) throw new IndexesUnlistedError(unlisted);
}
