/**
 * The field and source catalog: what fields exist with which types, and which sources sent how
 * much, when. Derived from segment headers plus the write buffer, so it is exact after
 * compaction and retention without bookkeeping of its own.
 */
import type { FieldValue } from './event';
import { RAW_COLUMN, TIME_COLUMN } from './event';
import type { MemTable } from './memtable';
import type { SegmentHeader } from './segment/header';

export interface FieldSummary {
  name: string;
  /** Events containing the field. */
  count: number;
  types: { string: number; integer: number; float: number; boolean: number };
  min: number | null;
  max: number | null;
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
      if (!overlaps(header.minTime, header.maxTime, filter)) continue;
      const sourceFields =
        filter.source === null ? null : new Set(header.sources.find((s) => s.name === filter.source)?.fields ?? []);
      if (sourceFields !== null && sourceFields.size === 0) continue;
      for (const column of header.columns) {
        if (sourceFields !== null && !sourceFields.has(column.name) && column.name !== TIME_COLUMN && column.name !== RAW_COLUMN) {
          continue;
        }
        const summary = get(column.name);
        const present = header.rowCount - column.nullCount;
        summary.count += present;
        summary.types.string += column.counts.string;
        summary.types.integer += column.counts.integer;
        summary.types.float += column.counts.number - column.counts.integer;
        summary.types.boolean += column.counts.boolean;
        summary.bytes += column.bytes;
        widen(summary, column.min, column.max, header.minTime, header.maxTime);
      }
    }
    for (const table of tables) {
      if (filter.index !== null && !filter.index(table.key.index)) continue;
      if (table.count === 0 || !overlaps(table.minTime, table.maxTime, filter)) continue;
      const rowsOfSource = filter.source === null ? null : rowsWithSource(table, filter.source);
      if (rowsOfSource !== null && rowsOfSource.size === 0) continue;
      const time = get(TIME_COLUMN);
      const raw = get(RAW_COLUMN);
      const rows = rowsOfSource === null ? table.count : rowsOfSource.size;
      time.count += rows;
      raw.count += rows;
      raw.types.string += rows;
      widen(time, table.minTime, table.maxTime, table.minTime, table.maxTime);
      widen(raw, null, null, table.minTime, table.maxTime);
      for (const [name, column] of table.fields) {
        const summary = get(name);
        for (let i = 0; i < column.rows.length; i++) {
          const row = column.rows[i];
          if (row >= table.count) break;
          if (rowsOfSource !== null && !rowsOfSource.has(row)) continue;
          countValue(summary, column.values[i], table.times[row]);
        }
      }
    }
    for (const [name, summary] of out) if (summary.count === 0) out.delete(name);
    return out;
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
      if (!overlaps(header.minTime, header.maxTime, filter)) continue;
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
      if (table.count === 0 || !overlaps(table.minTime, table.maxTime, filter)) continue;
      const sourceOfRow = sourcesByRow(table);
      for (let row = 0; row < table.count; row++) {
        const summary = get(sourceOfRow[row]);
        summary.eventCount++;
        summary.rawBytes += Buffer.byteLength(table.raws[row]);
        summary.firstEvent = Math.min(summary.firstEvent, table.times[row]);
        summary.lastEvent = Math.max(summary.lastEvent, table.times[row]);
      }
      for (const [name, column] of table.fields) {
        for (const row of column.rows) {
          if (row < table.count) out.get(sourceOfRow[row])?.fields.add(name);
        }
      }
    }
    return out;
  }
}

function countValue(summary: FieldSummary, value: FieldValue, time: number): void {
  summary.count++;
  if (typeof value === 'string') summary.types.string++;
  else if (typeof value === 'boolean') summary.types.boolean++;
  else {
    if (Number.isInteger(value)) summary.types.integer++;
    else summary.types.float++;
    widen(summary, value, value, time, time);
    return;
  }
  widen(summary, null, null, time, time);
}

function sourcesByRow(table: MemTable): string[] {
  const out = new Array<string>(table.count).fill('');
  const column = table.fields.get('source');
  if (column !== undefined) {
    for (let i = 0; i < column.rows.length; i++) {
      if (column.rows[i] < table.count) out[column.rows[i]] = String(column.values[i]);
    }
  }
  return out;
}

function rowsWithSource(table: MemTable, source: string): Set<number> {
  const rows = new Set<number>();
  const names = sourcesByRow(table);
  for (let row = 0; row < table.count; row++) if (names[row] === source) rows.add(row);
  return rows;
}
