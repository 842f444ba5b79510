/**
 * The field and source catalog: what fields exist with which types, and which sources sent how
 * much, when. Derived from segment headers plus the write buffer, so it is exact after
 * compaction and retention without bookkeeping of its own.
 */
import type { FieldValue } from './core/event';
import { RAW_COLUMN, TIME_COLUMN } from './core/event';
import { fieldRow, fieldValues, unpackStrings, type EventChunk, type PackedStrings } from './buffer/event-chunk';
import type { MemTable } from './buffer/memtable';
import { keyString } from './core/partition';
import { askedWhole, keyStringsOf } from './segment/segment-keys';
import type { ColumnStats, SegmentHeader } from './segment/header';
import { SourceNumbering } from './segment/source-stats';
import { chunkColumnStats } from './chunk-column-stats';
import { TopCounts } from './segment/top-values';
import { ValueSketch } from './segment/value-sketch';

export interface FieldSummary {
  name: string;
  /** Events containing the field. */
  count: number;
  types: { string: number; integer: number; float: number; boolean: number };
  min: number | null;
  max: number | null;
  /** Sum (NaN when unknown) and sketch of the numbers; `numbersKnown` false when a segment's header lacks the sketch. */
  sum: number;
  sketch: ValueSketch;
  numbersKnown: boolean;
  /** Counts of the string and integer values (top-values.ts). */
  top: TopCounts;
  /** Smallest and largest string, and whether each such bound seen was an ISO 8601 timestamp. */
  minString: string | null;
  maxString: string | null;
  isoStrings: boolean;
  /** Event-time range of the events holding the field (microseconds). */
  firstSeen: number;
  lastSeen: number;
  /** Compressed bytes of the field's column (buffered rows not included). */
  bytes: number;
}

export interface SourceSummary {
  name: string;
  eventCount: number;
  firstEvent: number;
  lastEvent: number;
  /** Raw bytes ingested under this source. */
  rawBytes: number;
  /** Compressed bytes stored, apportioned from segment sizes by row share. */
  storageBytes: number;
  fields: Set<string>;
}

export interface CatalogFilter {
  /** Accepts an index name (null = every index). */
  index: ((name: string) => boolean) | null;
  fromMicros: number;
  toMicros: number;
  /** Only rows of this source (null = all). */
  source: string | null;
  /** Only these partition keys (`index|bucket|partition`); absent or null = every key. */
  keys?: ReadonlySet<string> | null;
}

/** An ISO 8601 timestamp as `GET /fields` tells a `datetime` field: a date, a time, a parse. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

export function looksLikeTimestamp(text: string): boolean {
  return ISO_TIMESTAMP.test(text) && !Number.isNaN(Date.parse(text));
}

function keyAllowed(key: { index: string; bucket: number; partition: number }, filter: CatalogFilter): boolean {
  return filter.keys === undefined || filter.keys === null || filter.keys.has(keyString(key));
}

/** Whether the filter takes a segment: every key of it, or none (a filter naming some of them is refused). */
function segmentAllowed(header: SegmentHeader, filter: CatalogFilter): boolean {
  if (header.partitions === undefined || filter.keys === undefined || filter.keys === null) return keyAllowed(header, filter);
  return askedWhole(header, keyStringsOf(header), filter.keys);
}

function overlaps(minTime: number, maxTime: number, filter: CatalogFilter): boolean {
  return maxTime >= filter.fromMicros && minTime < filter.toMicros;
}

function emptyField(name: string): FieldSummary {
  return {
    name,
    count: 0,
    types: { string: 0, integer: 0, float: 0, boolean: 0 },
    min: null,
    max: null,
    sum: 0,
    sketch: new ValueSketch(),
    numbersKnown: true,
    top: new TopCounts(),
    minString: null,
    maxString: null,
    isoStrings: true,
    firstSeen: Infinity,
    lastSeen: -Infinity,
    bytes: 0,
  };
}

function widen(summary: FieldSummary, min: number | null, max: number | null, first: number, last: number): void {
  if (min !== null) summary.min = summary.min === null ? min : Math.min(summary.min, min);
  if (max !== null) summary.max = summary.max === null ? max : Math.max(summary.max, max);
  summary.firstSeen = Math.min(summary.firstSeen, first);
  summary.lastSeen = Math.max(summary.lastSeen, last);
}

function widenStrings(summary: FieldSummary, min: string | null, max: string | null): void {
  if (min !== null && (summary.minString === null || min < summary.minString)) summary.minString = min;
  if (max !== null && (summary.maxString === null || max > summary.maxString)) summary.maxString = max;
}

/** What a segment's column adds beyond counts and range: numbers, top values, string bounds. */
function addColumnDetail(summary: FieldSummary, column: ColumnStats): void {
  if (column.counts.number > 0) {
    summary.sum += column.sum ?? NaN;
    if (column.sketch === undefined) summary.numbersKnown = false;
    else summary.sketch.merge(column.sketch);
  }
  if (column.counts.string + column.counts.integer > 0) {
    if (column.top === undefined) summary.top.missed();
    else summary.top.addEntries(column.top, column.topExact === true);
  }
  if (column.counts.string > 0) {
    widenStrings(summary, column.minString, column.maxString);
    if (summary.isoStrings) {
      summary.isoStrings =
        column.minString !== null &&
        column.maxString !== null &&
        looksLikeTimestamp(column.minString) &&
        looksLikeTimestamp(column.maxString);
    }
  }
}

/** A segment's column (or a buffered chunk's field summarised alike) added to the field's summary. */
function addColumn(summary: FieldSummary, column: ColumnStats, rows: { rowCount: number; minTime: number; maxTime: number }): void {
  summary.count += rows.rowCount - column.nullCount;
  summary.types.string += column.counts.string;
  summary.types.integer += column.counts.integer;
  summary.types.float += column.counts.number - column.counts.integer;
  summary.types.boolean += column.counts.boolean;
  summary.bytes += column.bytes;
  widen(summary, column.min, column.max, rows.minTime, rows.maxTime);
  if (column.name !== TIME_COLUMN && column.name !== RAW_COLUMN) addColumnDetail(summary, column);
}

export class Catalog {
  fields(segments: Iterable<SegmentHeader>, tables: Iterable<MemTable>, filter: CatalogFilter): Map<string, FieldSummary> {
    const out = new Map<string, FieldSummary>();
    const get = (name: string): FieldSummary => {
      let summary = out.get(name);
      if (summary === undefined) {
        summary = emptyField(name);
        out.set(name, summary);
      }
      return summary;
    };
    for (const header of segments) {
      if (filter.index !== null && !filter.index(header.index)) continue;
      if (!overlaps(header.minTime, header.maxTime, filter) || !segmentAllowed(header, filter)) continue;
      const sourceFields = filter.source === null ? null : new Set(header.sources.find((s) => s.name === filter.source)?.fields ?? []);
      if (sourceFields !== null && sourceFields.size === 0) continue;
      for (const column of header.columns) {
        if (sourceFields !== null && !sourceFields.has(column.name) && column.name !== TIME_COLUMN && column.name !== RAW_COLUMN) {
          continue;
        }
        addColumn(get(column.name), column, header);
      }
    }
    for (const table of tables) {
      if (filter.index !== null && !filter.index(table.key.index)) continue;
      if (table.count === 0 || !overlaps(table.minTime, table.maxTime, filter) || !keyAllowed(table.key, filter)) continue;
      for (const chunk of table.chunks) {
        if (!overlaps(chunk.minTime, chunk.maxTime, filter)) continue;
        const rowsOfSource = filter.source === null ? null : rowsWithSource(chunk, filter.source);
        if (rowsOfSource !== null && rowsOfSource.size === 0) continue;
        if (rowsOfSource === null) {
          // Every row counts: the chunk's fields as summarised once (chunk-column-stats.ts).
          const time = get(TIME_COLUMN);
          const raw = get(RAW_COLUMN);
          time.count += chunk.count;
          raw.count += chunk.count;
          raw.types.string += chunk.count;
          widen(time, chunk.minTime, chunk.maxTime, chunk.minTime, chunk.maxTime);
          widen(raw, null, null, chunk.minTime, chunk.maxTime);
          const span = { rowCount: chunk.count, minTime: chunk.minTime, maxTime: chunk.maxTime };
          for (const column of chunkColumnStats(chunk)) addColumn(get(column.name), column, span);
          continue;
        }
        const time = get(TIME_COLUMN);
        const raw = get(RAW_COLUMN);
        const rows = rowsOfSource.size;
        time.count += rows;
        raw.count += rows;
        raw.types.string += rows;
        widen(time, chunk.minTime, chunk.maxTime, chunk.minTime, chunk.maxTime);
        widen(raw, null, null, chunk.minTime, chunk.maxTime);
        for (const field of chunk.fields) {
          const summary = get(field.name);
          const values = fieldValues(field);
          for (let i = 0; i < values.length; i++) {
            const row = fieldRow(field, i);
            if (!rowsOfSource.has(row)) continue;
            countValue(summary, values[i], chunk.times[row]);
          }
        }
      }
    }
    for (const [name, summary] of out) if (summary.count === 0) out.delete(name);
    return out;
  }

  /** Which of `names` some event under the filter holds; stops early, reading headers and chunk field names only. */
  fieldsPresent(
    segments: Iterable<SegmentHeader>,
    tables: Iterable<MemTable>,
    filter: CatalogFilter,
    names: readonly string[],
  ): Set<string> {
    const found = new Set<string>();
    const wanted = new Set(names);
    const note = (name: string): void => {
      if (wanted.delete(name)) found.add(name);
    };
    for (const header of segments) {
      if (wanted.size === 0) return found;
      if (filter.index !== null && !filter.index(header.index)) continue;
      if (!overlaps(header.minTime, header.maxTime, filter)) continue;
      for (const column of header.columns) if (column.nullCount < header.rowCount) note(column.name);
    }
    for (const table of tables) {
      if (wanted.size === 0) return found;
      if (filter.index !== null && !filter.index(table.key.index)) continue;
      if (table.count === 0 || !overlaps(table.minTime, table.maxTime, filter)) continue;
      for (const chunk of table.chunks) {
        if (!overlaps(chunk.minTime, chunk.maxTime, filter)) continue;
        for (const field of chunk.fields) note(field.name);
      }
    }
    return found;
  }

  sources(segments: Iterable<SegmentHeader>, tables: Iterable<MemTable>, filter: CatalogFilter): Map<string, SourceSummary> {
    const out = new Map<string, SourceSummary>();
    const get = (name: string): SourceSummary => {
      let summary = out.get(name);
      if (summary === undefined) {
        summary = { name, eventCount: 0, firstEvent: Infinity, lastEvent: -Infinity, rawBytes: 0, storageBytes: 0, fields: new Set() };
        out.set(name, summary);
      }
      return summary;
    };
    for (const header of segments) {
      if (filter.index !== null && !filter.index(header.index)) continue;
      if (!overlaps(header.minTime, header.maxTime, filter) || !segmentAllowed(header, filter)) continue;
      for (const source of header.sources) {
        const summary = get(source.name);
        summary.eventCount += source.rows;
        summary.rawBytes += source.rawBytes;
        summary.storageBytes += Math.round((header.bytes * source.rows) / Math.max(1, header.rowCount));
        summary.firstEvent = Math.min(summary.firstEvent, source.minTime);
        summary.lastEvent = Math.max(summary.lastEvent, source.maxTime);
        for (const field of source.fields) summary.fields.add(field);
      }
    }
    for (const table of tables) {
      if (filter.index !== null && !filter.index(table.key.index)) continue;
      if (table.count === 0 || !overlaps(table.minTime, table.maxTime, filter) || !keyAllowed(table.key, filter)) continue;
      for (const chunk of table.chunks) {
        for (const part of sourcesOfChunk(chunk)) {
          const summary = get(part.name);
          summary.eventCount += part.eventCount;
          summary.rawBytes += part.rawBytes;
          summary.firstEvent = Math.min(summary.firstEvent, part.firstEvent);
          summary.lastEvent = Math.max(summary.lastEvent, part.lastEvent);
          for (const field of part.fields) summary.fields.add(field);
        }
      }
    }
    return out;
  }
}

function countValue(summary: FieldSummary, value: FieldValue, time: number): void {
  summary.count++;
  if (typeof value === 'string') {
    summary.types.string++;
    summary.top.add(value, 1);
    if (summary.minString === null || value < summary.minString || summary.maxString === null || value > summary.maxString) {
      widenStrings(summary, value, value);
      if (summary.isoStrings && !looksLikeTimestamp(value)) summary.isoStrings = false;
    }
  } else if (typeof value === 'boolean') summary.types.boolean++;
  else {
    if (Number.isInteger(value)) summary.types.integer++;
    else summary.types.float++;
    summary.sum += value;
    summary.sketch.add(value);
    const countable = TopCounts.countable(value);
    if (countable !== null) summary.top.add(countable, 1);
    widen(summary, value, value, time, time);
    return;
  }
  widen(summary, null, null, time, time);
}

/**
 * The sources of one buffered chunk, summed once: a chunk does not change after it is built, and
 * `/stats` asks for the sources on every call (a full write buffer holds a million rows).
 */
const chunkSources = new WeakMap<EventChunk, SourceSummary[]>();

export function sourcesOfChunk(chunk: EventChunk): SourceSummary[] {
  const known = chunkSources.get(chunk);
  if (known !== undefined) return known;
  const count = chunk.count;
  const { names, sourceOfRow } = numberedSources(chunk);
  const summaries: (SourceSummary | undefined)[] = new Array<SourceSummary | undefined>(names.length);
  // Sources in order of their first row.
  const present: SourceSummary[] = [];
  const ends = chunk.raws.ends;
  for (let row = 0; row < count; row++) {
    const source = sourceOfRow[row];
    let summary = summaries[source];
    if (summary === undefined) {
      summary = {
        name: names[source],
        eventCount: 0,
        firstEvent: Infinity,
        lastEvent: -Infinity,
        rawBytes: 0,
        storageBytes: 0,
        fields: new Set(),
      };
      summaries[source] = summary;
      present.push(summary);
    }
    summary.eventCount++;
    summary.rawBytes += ends[row] - (row === 0 ? 0 : ends[row - 1]);
    const time = chunk.times[row];
    if (time < summary.firstEvent) summary.firstEvent = time;
    if (time > summary.lastEvent) summary.lastEvent = time;
  }
  // A field belongs to every source with a row holding it: stop once each source has been seen.
  const seen = new Uint8Array(names.length);
  for (const field of chunk.fields) {
    seen.fill(0);
    let distinct = 0;
    const entries = field.rows === null ? count : field.rows.length;
    for (let i = 0; i < entries && distinct < present.length; i++) {
      const source = sourceOfRow[fieldRow(field, i)];
      if (seen[source] === 1) continue;
      seen[source] = 1;
      distinct++;
      (summaries[source] as SourceSummary).fields.add(field.name);
    }
  }
  chunkSources.set(chunk, present);
  return present;
}

/**
 * Each row's source as a number into `names` (0: no source, reported as ''). A string `source`
 * column numbers rows by its dictionary codes, without a string per row.
 */
function numberedSources(chunk: EventChunk): { names: string[]; sourceOfRow: Uint32Array } {
  const sourceOfRow = new Uint32Array(chunk.count);
  const numbering = new SourceNumbering();
  const field = chunk.fields.find((candidate) => candidate.name === 'source');
  if (field === undefined) return { names: numbering.names, sourceOfRow };
  if (field.type === 'string') {
    const byCode = unpackStrings(field.dict as PackedStrings).map((name) => numbering.numberOf(name));
    const codes = field.codes as Uint32Array;
    for (let i = 0; i < codes.length; i++) sourceOfRow[fieldRow(field, i)] = byCode[codes[i]];
  } else {
    const values = fieldValues(field);
    for (let i = 0; i < values.length; i++) sourceOfRow[fieldRow(field, i)] = numbering.numberOf(String(values[i]));
  }
  return { names: numbering.names, sourceOfRow };
}

function sourcesByRow(chunk: EventChunk): string[] {
  const out = new Array<string>(chunk.count).fill('');
  const field = chunk.fields.find((candidate) => candidate.name === 'source');
  if (field !== undefined) {
    const values = fieldValues(field);
    for (let i = 0; i < values.length; i++) out[fieldRow(field, i)] = String(values[i]);
  }
  return out;
}

function rowsWithSource(chunk: EventChunk, source: string): Set<number> {
  const rows = new Set<number>();
  const names = sourcesByRow(chunk);
  for (let row = 0; row < chunk.count; row++) if (names[row] === source) rows.add(row);
  return rows;
}
