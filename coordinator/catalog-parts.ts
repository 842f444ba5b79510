/**
 * The field and source catalog as one node's part of an answer: plain JSON (it crosses the
 * ShardQuery.Catalog call), merged by the node that answers `GET /fields` or `GET /sources`.
 * Every part covers keys no other part covers (key-assignment.ts), so merging adds counts, sums,
 * sketches and top-value counts and widens ranges; merging the parts of any split of the keys
 * gives the part of the whole (up to the heavy-hitters cut of inexact top values).
 */
import type { FieldSummary, SourceSummary } from '../storage/catalog';
import { RAW_COLUMN } from '../storage/core/event';
import { TopCounts, type TopEntry } from '../storage/segment/top-values';
import { ValueSketch, type SketchJSON } from '../storage/segment/value-sketch';

export interface FieldPart {
  name: string;
  count: number;
  types: { string: number; integer: number; float: number; boolean: number };
  min: number | null;
  max: number | null;
  /** Sum and sketch of the numbers; null when unknown (a header without them, a sum that overflowed). */
  sum: number | null;
  sketch: SketchJSON | null;
  top: TopEntry[];
  topExact: boolean;
  minString: string | null;
  maxString: string | null;
  /** Whether every string bound seen was an ISO 8601 timestamp. */
  isoStrings: boolean;
}

export interface SourcePart {
  name: string;
  eventCount: number;
  /** Microseconds. */
  firstEvent: number;
  lastEvent: number;
  storageBytes: number;
  fields: string[];
}

export interface CatalogPart {
  /** Every field but `_raw`; `_time`'s count is the number of events. */
  fields: FieldPart[];
  sources: SourcePart[];
}

/** What a catalog answer covers. */
export interface CatalogRequest {
  /** Microseconds, `[fromMicros, toMicros)`: segments overlapping it count whole, buffered rows exactly. */
  fromMicros: number;
  toMicros: number;
  /** Only fields (and the counts of segments) of this source; null = all. */
  source: string | null;
  /** Only fields whose names start with it ('' = all). */
  prefix: string;
}

/** A node that answers catalog parts for the keys it is given. */
export interface CatalogTarget {
  catalog(keys: readonly string[], request: CatalogRequest, signal: AbortSignal): Promise<CatalogPart>;
}

export function fieldPartOf(summary: FieldSummary): FieldPart {
  const numbers = summary.types.integer + summary.types.float > 0;
  const top = summary.top.finish();
  return {
    name: summary.name,
    count: summary.count,
    types: { ...summary.types },
    min: summary.min,
    max: summary.max,
    sum: numbers && Number.isFinite(summary.sum) ? summary.sum : null,
    sketch: numbers && summary.numbersKnown ? summary.sketch.toJSON() : null,
    top: top.top,
    topExact: top.exact,
    minString: summary.minString,
    maxString: summary.maxString,
    isoStrings: summary.isoStrings,
  };
}

export function sourcePartOf(summary: SourceSummary): SourcePart {
  return {
    name: summary.name,
    eventCount: summary.eventCount,
    firstEvent: summary.firstEvent,
    lastEvent: summary.lastEvent,
    storageBytes: summary.storageBytes,
    fields: [...summary.fields].sort(),
  };
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** One node's catalog as a part, by name: `_raw` left out (it is every event's text, not a field to discover). */
export function catalogPartOf(fields: Iterable<FieldSummary>, sources: Iterable<SourceSummary>): CatalogPart {
  return {
    fields: [...fields]
      .filter((field) => field.name !== RAW_COLUMN)
      .map(fieldPartOf)
      .sort(byName),
    sources: [...sources].map(sourcePartOf).sort(byName),
  };
}

function lesser<T extends number | string>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  return b === null || a <= b ? a : b;
}

function greater<T extends number | string>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  return b === null || a >= b ? a : b;
}

function mergeFields(parts: readonly FieldPart[]): FieldPart {
  const first = parts[0];
  const types = { string: 0, integer: 0, float: 0, boolean: 0 };
  const top = new TopCounts();
  let sketch: ValueSketch | null = new ValueSketch();
  let sum: number | null = 0;
  const merged: FieldPart = { ...first, count: 0, types, min: null, max: null, minString: null, maxString: null, isoStrings: true };
  for (const part of parts) {
    merged.count += part.count;
    types.string += part.types.string;
    types.integer += part.types.integer;
    types.float += part.types.float;
    types.boolean += part.types.boolean;
    merged.min = lesser(merged.min, part.min);
    merged.max = greater(merged.max, part.max);
    merged.minString = lesser(merged.minString, part.minString);
    merged.maxString = greater(merged.maxString, part.maxString);
    if (part.types.string > 0) merged.isoStrings &&= part.isoStrings;
    if (part.types.integer + part.types.float > 0) {
      sum = sum === null || part.sum === null ? null : sum + part.sum;
      if (part.sketch === null) sketch = null;
      else sketch?.merge(part.sketch);
    }
    if (part.types.string + part.types.integer > 0) top.addEntries(part.top, part.topExact);
  }
  const numbers = types.integer + types.float > 0;
  const counted = top.finish();
  return {
    ...merged,
    sum: numbers && sum !== null && Number.isFinite(sum) ? sum : null,
    sketch: numbers && sketch !== null ? sketch.toJSON() : null,
    top: counted.top,
    topExact: counted.exact,
  };
}

function mergeSources(parts: readonly SourcePart[]): SourcePart {
  const fields = new Set<string>();
  const merged: SourcePart = { ...parts[0], eventCount: 0, firstEvent: Infinity, lastEvent: -Infinity, storageBytes: 0, fields: [] };
  for (const part of parts) {
    merged.eventCount += part.eventCount;
    merged.storageBytes += part.storageBytes;
    merged.firstEvent = Math.min(merged.firstEvent, part.firstEvent);
    merged.lastEvent = Math.max(merged.lastEvent, part.lastEvent);
    for (const field of part.fields) fields.add(field);
  }
  merged.fields = [...fields].sort();
  return merged;
}

function groupBy<T extends { name: string }>(lists: readonly (readonly T[])[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const list of lists) {
    for (const item of list) {
      const group = groups.get(item.name);
      if (group === undefined) groups.set(item.name, [item]);
      else group.push(item);
    }
  }
  return [...groups.keys()].sort().map((name) => groups.get(name)!);
}

/** The part of the union of the parts' keys (each key in at most one part); fields and sources by name. */
export function mergeCatalogParts(parts: readonly CatalogPart[]): CatalogPart {
  return {
    fields: groupBy(parts.map((part) => part.fields)).map(mergeFields),
    sources: groupBy(parts.map((part) => part.sources)).map(mergeSources),
  };
}
