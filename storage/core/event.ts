/**
 * The normalized event: what every ingest parser produces and the write buffer stores.
 *
 * Well-known fields live in `fields` like any other: `source`, `sourcetype`, `host`, `level`.
 * `index` is not a field of the row: it is part of the segment key, and readers expose it as a
 * constant column.
 */

/** A stored value keeps its own type: a column may hold strings in some rows and numbers in others. */
export type FieldValue = string | number | boolean;

export interface LogEvent {
  /** Event time, microseconds since the Unix epoch (an integer). */
  time: number;
  /** The raw event text (`_raw`). */
  raw: string;
  /** Target index (default `main`). */
  index: string;
  /** Typed fields, flattened names (`resource.service.name`). Absent means null. */
  fields: Record<string, FieldValue>;
}

/** Reserved column names that every segment has. */
export const TIME_COLUMN = '_time';
export const RAW_COLUMN = '_raw';
export const INDEX_COLUMN = 'index';

export const DEFAULT_INDEX = 'main';

/** Index names: lower-case letters, digits, `_`, `-` and `.`, not starting with `_` or `.`, up to 128 chars. */
export const INDEX_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,127}$/;

export function isValidIndexName(name: string): boolean {
  return INDEX_NAME_PATTERN.test(name);
}

/**
 * The audit log's index. Its name starts with `_`, which no user index can, so nobody can ingest
 * into it, and no index pattern but its exact name reads it (storage/scan.ts indexMatcher).
 */
export const AUDIT_INDEX = '_audit';

/** Indexes only the server writes. */
const INTERNAL_INDEXES: ReadonlySet<string> = new Set([AUDIT_INDEX]);

/** An index the server keeps for itself: it never appears in index lists, catalogs or `from *`. */
export function isInternalIndexName(name: string): boolean {
  return name.startsWith('_');
}

/** A name storage holds: a user index name, or one of the server's own. */
export function isStoredIndexName(name: string): boolean {
  return isValidIndexName(name) || INTERNAL_INDEXES.has(name);
}

/** Every index a user may name: all but the internal ones. */
export function isUserIndexName(name: string): boolean {
  return !isInternalIndexName(name);
}
