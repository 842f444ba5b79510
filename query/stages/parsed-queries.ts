/**
 * Queries parsed before, by their text and `$variables`: the same text comes back again and again
 * (a dashboard's panels, an alert's checks, every node and query worker of a cluster planning
 * each fragment from its text), and nearley's parse costs far more than the plan made from it.
 * Each thread keeps its own. A remembered query is frozen, so that nothing downstream can change
 * what the next caller of the same text gets: a stage that edited its node would throw instead.
 */
import { RecentMap } from '../../storage/core/recent-map';
import type { Query } from './registry';

/** Distinct query texts a thread remembers. */
export const REMEMBERED_QUERIES = 256;

/** Longer texts are parsed each time: they are rare, and would crowd the short ones out of memory. */
export const MAX_REMEMBERED_TEXT = 16 * 1024;

const remembered = new RecentMap<Query>(REMEMBERED_QUERIES);

/**
 * Keyed by the text as written (positions and messages refer to it) and as substituted (what was
 * parsed): two sets of variables that give the same literals share an entry, and no two that
 * differ can, whatever JSON would make of their values.
 */
function keyOf(text: string, substituted: string): string | null {
  return text.length > MAX_REMEMBERED_TEXT || substituted.length > MAX_REMEMBERED_TEXT ? null : `${text}\u0000${substituted}`;
}

/** Freezes the plain objects and arrays of a parsed query, all the way down. */
function freezeDeep(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) freezeDeep(child);
}

/** The query parsed before from this text, substituted so, if this thread remembers it. */
export function recallQuery(text: string, substituted: string): Query | undefined {
  const key = keyOf(text, substituted);
  return key === null ? undefined : remembered.get(key);
}

/** Remembers a query that parsed and validated, frozen; returns it. */
export function rememberQuery(text: string, substituted: string, query: Query): Query {
  const key = keyOf(text, substituted);
  if (key === null) return query;
  freezeDeep(query);
  remembered.set(key, query);
  return query;
}
