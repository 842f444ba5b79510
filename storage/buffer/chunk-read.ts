/**
 * Reading event chunks: as decoded column vectors for queries over buffered rows, and as the
 * segment encoder's RowSet for a flush (run in the codec worker, so the main thread never decodes
 * a chunk it only writes out).
 */
import { valueAt, type Column, type ColumnBatch } from '../core/column';
import type { FieldValue, LogEvent } from '../core/event';
import { INDEX_COLUMN, RAW_COLUMN, TIME_COLUMN } from '../core/event';
import { fieldRow, unpackStrings, type ChunkField, type ChunkPiece, type EventChunk, type PackedStrings } from './event-chunk';
import type { AsciiText } from '../segment/ascii-text';
import { lowerBound } from '../core/sorted';
import type { RowSet, RowSetColumn } from '../segment/row-set';
import { DictionaryMerger } from './dictionary-merge';

/** What a scan of a buffered chunk reads: a time range and columns (null = all). */
export interface ChunkScan {
  fromMicros: number;
  toMicros: number;
  columns: readonly string[] | null;
}

export function rowsInRange(chunk: EventChunk, fromMicros: number, toMicros: number): number {
  if (chunk.minTime >= fromMicros && chunk.maxTime < toMicros) return chunk.count;
  let rows = 0;
  for (const time of chunk.times) if (time >= fromMicros && time < toMicros) rows++;
  return rows;
}

/** The chunk's rows in the time range, with the requested columns (and `_time`) decoded. */
export function chunkBatch(chunk: EventChunk, scan: ChunkScan): ColumnBatch {
  const names =
    scan.columns === null
      ? [TIME_COLUMN, RAW_COLUMN, INDEX_COLUMN, ...chunk.fields.map((field) => field.name)]
      : scan.columns.includes(TIME_COLUMN)
        ? scan.columns
        : [TIME_COLUMN, ...scan.columns];
  const inRange: number[] = [];
  const all = chunk.minTime >= scan.fromMicros && chunk.maxTime < scan.toMicros;
  if (!all)
    for (let row = 0; row < chunk.count; row++)
      if (chunk.times[row] >= scan.fromMicros && chunk.times[row] < scan.toMicros) inRange.push(row);
  const columns = new Map<string, Column>();
  for (const name of names) {
    const column = chunkColumn(chunk, name);
    columns.set(name, all ? column : takeRows(column, inRange));
  }
  return { rowCount: all ? chunk.count : inRange.length, columns };
}

function takeRows(column: Column, rows: number[]): Column {
  switch (column.kind) {
    case 'time':
      return { kind: 'time', values: Float64Array.from(rows, (row) => column.values[row]) };
    case 'number':
      return {
        ...column,
        values: Float64Array.from(rows, (row) => column.values[row]),
        nulls: column.nulls === null ? null : Uint8Array.from(rows, (row) => (column.nulls as Uint8Array)[row]),
      };
    case 'boolean':
      return {
        ...column,
        values: Uint8Array.from(rows, (row) => column.values[row]),
        nulls: column.nulls === null ? null : Uint8Array.from(rows, (row) => (column.nulls as Uint8Array)[row]),
      };
    case 'dict':
      return { kind: 'dict', dict: column.dict, codes: Uint32Array.from(rows, (row) => column.codes[row]) };
    case 'string':
      return { kind: 'string', values: rows.map((row) => column.values[row]) };
    case 'mixed':
      return { kind: 'mixed', values: rows.map((row) => column.values[row]) };
    case 'const':
      return { kind: 'const', value: column.value, length: rows.length };
  }
}

/** The chunk's rows as events again (replay under a changed placement). */
export function chunkEventsOf(chunk: EventChunk): LogEvent[] {
  const raws = unpackStrings(chunk.raws);
  const events: LogEvent[] = Array.from(raws, (raw, row) => ({ time: chunk.times[row], raw, index: chunk.key.index, fields: {} }));
  for (const field of chunk.fields) {
    const column = fieldColumn(field, chunk.count);
    const entries = field.rows === null ? chunk.count : field.rows.length;
    for (let i = 0; i < entries; i++) {
      const row = fieldRow(field, i);
      const value = valueAt(column, row);
      if (value !== null) events[row].fields[field.name] = value;
    }
  }
  return events;
}

/** One column of a chunk, all rows. `index` is a constant; a field the chunk lacks is all-null. */
export function chunkColumn(chunk: EventChunk, name: string): Column {
  if (name === TIME_COLUMN) return { kind: 'time', values: chunk.times };
  if (name === RAW_COLUMN) return { kind: 'string', values: unpackStrings(chunk.raws) };
  if (name === INDEX_COLUMN) return { kind: 'const', value: chunk.key.index, length: chunk.count };
  const field = chunk.fields.find((candidate) => candidate.name === name);
  return field === undefined ? { kind: 'const', value: null, length: chunk.count } : fieldColumn(field, chunk.count);
}

function fieldColumn(field: ChunkField, count: number): Column {
  const rows = field.rows;
  const entries = rows === null ? count : rows.length;
  switch (field.type) {
    case 'string': {
      // Code 0 is null in a dict column, so chunk codes shift up by one.
      const dict = ['', ...unpackStrings(field.dict as PackedStrings)];
      const codes = dict.length <= 0xff ? new Uint8Array(count) : dict.length <= 0xffff ? new Uint16Array(count) : new Uint32Array(count);
      const source = field.codes as Uint32Array;
      for (let i = 0; i < entries; i++) codes[rows === null ? i : rows[i]] = source[i] + 1;
      return { kind: 'dict', dict, codes };
    }
    case 'number':
    case 'boolean': {
      const source = field.numbers as Float64Array;
      const nulls = rows === null ? null : new Uint8Array(count).fill(1);
      if (field.type === 'boolean') {
        const values = new Uint8Array(count);
        for (let i = 0; i < entries; i++) {
          const row = rows === null ? i : rows[i];
          values[row] = source[i];
          if (nulls !== null) nulls[row] = 0;
        }
        return { kind: 'boolean', values, nulls };
      }
      const values = rows === null ? source : new Float64Array(count);
      let allIntegers = true;
      for (let i = 0; i < entries; i++) {
        if (allIntegers && !Number.isInteger(source[i])) allIntegers = false;
        if (rows !== null) {
          values[rows[i]] = source[i];
          (nulls as Uint8Array)[rows[i]] = 0;
        }
      }
      return { kind: 'number', values, nulls, allIntegers };
    }
    case 'mixed': {
      const values = new Array<FieldValue | null>(count).fill(null);
      const source = field.mixed as FieldValue[];
      for (let i = 0; i < entries; i++) values[fieldRow(field, i)] = source[i];
      return { kind: 'mixed', values };
    }
  }
}

/** A field's entries being gathered from pieces: values, or codes into merged dictionaries. */
interface GatheredField {
  rows: Uint32Array;
  filled: number;
  /** Set when every piece holds the field as UTF-8 strings. */
  merger: DictionaryMerger | null;
  codes: Uint32Array | null;
  values: FieldValue[] | null;
}

/**
 * The rows of chunk pieces, in order, as the segment encoder's input. Arrays are sized up front
 * and filled by index. A field that every piece holds as strings stays coded (CodedColumn): the
 * chunks' dictionaries are merged by bytes, and no row gets a JS value.
 */
export function rowSetOfPieces(pieces: readonly ChunkPiece[]): RowSet {
  let count = 0;
  const entries = new Map<string, number>();
  const codable = new Map<string, boolean>();
  /** Per coded field: the entries and bytes of its chunk dictionaries (sizes the merge). */
  const dictSizes = new Map<string, [number, number]>();
  for (const { chunk, start, end } of pieces) {
    count += end - start;
    for (const field of chunk.fields) {
      const [from, to] = entryRange(field, start, end);
      if (to <= from) continue;
      entries.set(field.name, (entries.get(field.name) ?? 0) + (to - from));
      const dict = field.dict;
      const strings = field.type === 'string' && dict !== null && DictionaryMerger.accepts(dict);
      codable.set(field.name, (codable.get(field.name) ?? true) && strings);
      if (dict === null) continue;
      const [entriesSoFar, bytesSoFar] = dictSizes.get(field.name) ?? [0, 0];
      dictSizes.set(field.name, [entriesSoFar + dict.ends.length, bytesSoFar + dict.bytes.length]);
    }
  }
  const times = new Float64Array(count);
  // ASCII text stays bytes all the way into the segment (ascii-text.ts).
  const rawText = pieces.every((piece) => piece.chunk.raws.encoding === 'latin1') ? concatText(pieces, count) : undefined;
  const raws = rawText === undefined ? new Array<string>(count) : [];
  const fields = new Map<string, GatheredField>();
  for (const [name, total] of entries) {
    const coded = codable.get(name) === true;
    fields.set(name, {
      rows: new Uint32Array(total),
      filled: 0,
      merger: coded ? new DictionaryMerger(...(dictSizes.get(name) ?? [0, 0])) : null,
      codes: coded ? new Uint32Array(total) : null,
      values: coded ? null : new Array<FieldValue>(total),
    });
  }
  let base = 0;
  for (const { chunk, start, end } of pieces) {
    for (let row = start; row < end; row++) times[base + row - start] = chunk.times[row];
    if (rawText === undefined) {
      const text = unpackStrings(chunk.raws, start, end);
      for (let i = 0; i < text.length; i++) raws[base + i] = text[i];
    }
    for (const field of chunk.fields) {
      const [from, to] = entryRange(field, start, end);
      if (to <= from) continue;
      const column = fields.get(field.name)!;
      const shift = base - start;
      let k = column.filled;
      for (let i = from; i < to; i++) column.rows[k++] = fieldRow(field, i) + shift;
      if (column.merger !== null) copyCodes(field, from, to, column);
      else copyValues(field, from, to, column);
      column.filled = k;
    }
    base += end - start;
  }
  const out = new Map<string, RowSetColumn>();
  for (const [name, { rows, merger, codes, values }] of fields) {
    out.set(name, merger === null ? { rows, values: values as FieldValue[] } : { rows, codes: codes as Uint32Array, ...merger.finish() });
  }
  return { count, times, raws, rawText, fields: out };
}

/** The pieces' `_raw` bytes as one buffer. */
function concatText(pieces: readonly ChunkPiece[], count: number): AsciiText {
  let total = 0;
  for (const { chunk, start, end } of pieces) total += byteOffset(chunk.raws, end) - byteOffset(chunk.raws, start);
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(count);
  let at = 0;
  let row = 0;
  for (const { chunk, start, end } of pieces) {
    const from = byteOffset(chunk.raws, start);
    bytes.set(chunk.raws.bytes.subarray(from, byteOffset(chunk.raws, end)), at);
    for (let i = start; i < end; i++) ends[row++] = at + chunk.raws.ends[i] - from;
    at += byteOffset(chunk.raws, end) - from;
  }
  return { bytes, ends };
}

/** Where string i starts. */
function byteOffset(packed: PackedStrings, i: number): number {
  return i === 0 ? 0 : packed.ends[i - 1];
}

/** The entries of a field whose rows fall in `[start, end)`. */
function entryRange(field: ChunkField, start: number, end: number): [number, number] {
  if (field.rows === null) return [start, end];
  return [lowerBound(field.rows, start), lowerBound(field.rows, end)];
}

/** A string field's entries as merged-dictionary codes. */
function copyCodes(field: ChunkField, from: number, to: number, column: GatheredField): void {
  const merged = (column.merger as DictionaryMerger).add(field.dict as PackedStrings);
  const local = field.codes as Uint32Array;
  const codes = column.codes as Uint32Array;
  let k = column.filled;
  for (let i = from; i < to; i++) codes[k++] = merged[local[i]];
}

function copyValues(field: ChunkField, from: number, to: number, column: GatheredField): void {
  const values = column.values as FieldValue[];
  let k = column.filled;
  switch (field.type) {
    case 'string': {
      const dict = unpackStrings(field.dict as PackedStrings);
      const codes = field.codes as Uint32Array;
      for (let i = from; i < to; i++) values[k++] = dict[codes[i]];
      break;
    }
    case 'number': {
      const numbers = field.numbers as Float64Array;
      for (let i = from; i < to; i++) values[k++] = numbers[i];
      break;
    }
    case 'boolean': {
      const numbers = field.numbers as Float64Array;
      for (let i = from; i < to; i++) values[k++] = numbers[i] === 1;
      break;
    }
    case 'mixed': {
      const mixed = field.mixed as FieldValue[];
      for (let i = from; i < to; i++) values[k++] = mixed[i];
      break;
    }
  }
}
