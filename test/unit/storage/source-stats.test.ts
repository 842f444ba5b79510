/** Per-source summaries of a row set, against a direct count over the rows. */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { sourcesOfChunk } from '../../../storage/catalog';
import type { FieldValue, LogEvent } from '../../../storage/core/event';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { SourceStats } from '../../../storage/segment/header';
import { entryValue, type CodedColumn, type RowSet, type SparseColumn } from '../../../storage/segment/row-set';
import { sourceStatsOf } from '../../../storage/segment/source-stats';

/** The summaries computed row by row with plain objects, sources in order of first row. */
function expected(rows: RowSet): SourceStats[] {
  const sourceOf = (row: number): string => {
    const column = rows.fields.get('source');
    if (column === undefined) return '';
    for (let i = 0; i < column.rows.length; i++) if (column.rows[i] === row) return String(entryValue(column, i));
    return '';
  };
  const out = new Map<string, SourceStats>();
  for (let row = 0; row < rows.count; row++) {
    const name = sourceOf(row);
    const stats = out.get(name) ?? { name, rows: 0, rawBytes: 0, minTime: Infinity, maxTime: -Infinity, fields: [] };
    out.set(name, stats);
    stats.rows++;
    stats.rawBytes += Buffer.byteLength(rows.raws[row]);
    stats.minTime = Math.min(stats.minTime, rows.times[row]);
    stats.maxTime = Math.max(stats.maxTime, rows.times[row]);
    for (const [field, column] of rows.fields) {
      if (Array.from(column.rows).includes(row) && !stats.fields.includes(field)) stats.fields.push(field);
    }
  }
  return [...out.values()].map((stats) => ({ ...stats, fields: [...stats.fields].sort() }));
}

const rowSet = fc
  .array(
    fc.record({
      time: fc.integer({ min: 0, max: 1000 }),
      raw: fc.string({ maxLength: 8 }),
      source: fc.option(fc.constantFrom('nginx', 'auth', '', 'é'), { nil: undefined }),
      fields: fc.subarray(['status', 'path', 'user', 'ms']),
    }),
    { maxLength: 40 },
  )
  .map((events): RowSet => {
    const fields = new Map<string, { rows: number[]; values: FieldValue[] }>();
    const add = (name: string, row: number, value: FieldValue): void => {
      const column = fields.get(name) ?? { rows: [], values: [] };
      fields.set(name, column);
      column.rows.push(row);
      column.values.push(value);
    };
    events.forEach((event, row) => {
      if (event.source !== undefined) add('source', row, event.source);
      for (const name of event.fields) add(name, row, row);
    });
    return {
      count: events.length,
      times: events.map((event) => event.time),
      raws: events.map((event) => event.raw),
      fields: new Map<string, SparseColumn>(fields),
    };
  });

describe('source stats', () => {
  it('counts rows, bytes, time range and fields per source, sources in order of first row', () => {
    fc.assert(
      fc.property(rowSet, (rows) => {
        assert.deepEqual(sourceStatsOf(rows), expected(rows));
      }),
      { numRuns: 400 },
    );
  });

  it("reads a coded source column (a flush's) as its values, unused dictionary entries included", () => {
    fc.assert(
      fc.property(rowSet, (rows) => {
        const source = rows.fields.get('source') as SparseColumn | undefined;
        if (source === undefined) return;
        // Dictionary order is not first-row order, and a merged dictionary may hold names no row uses.
        const dict = ['unused', ...new Set(Array.from(source.values, String))].reverse();
        const coded: CodedColumn = {
          rows: source.rows,
          codes: Uint32Array.from(source.values, (value) => dict.indexOf(String(value))),
          dict,
          dictBytes: Uint32Array.from(dict, (name) => Buffer.byteLength(name)),
        };
        const codedRows: RowSet = { ...rows, fields: new Map([...rows.fields, ['source', coded]]) };
        assert.deepEqual(sourceStatsOf(codedRows), expected(rows));
      }),
      { numRuns: 300 },
    );
  });
});

/** A buffered chunk's source summaries, computed event by event. */
function expectedOfEvents(
  events: readonly LogEvent[],
): { name: string; eventCount: number; firstEvent: number; lastEvent: number; rawBytes: number; fields: string[] }[] {
  const out = new Map<
    string,
    { name: string; eventCount: number; firstEvent: number; lastEvent: number; rawBytes: number; fields: string[] }
  >();
  for (const event of events) {
    const source = event.fields.source;
    const name = source === undefined ? '' : String(source);
    const summary = out.get(name) ?? { name, eventCount: 0, firstEvent: Infinity, lastEvent: -Infinity, rawBytes: 0, fields: [] };
    out.set(name, summary);
    summary.eventCount++;
    summary.rawBytes += Buffer.byteLength(event.raw);
    summary.firstEvent = Math.min(summary.firstEvent, event.time);
    summary.lastEvent = Math.max(summary.lastEvent, event.time);
    for (const field of Object.keys(event.fields)) if (!summary.fields.includes(field)) summary.fields.push(field);
  }
  return [...out.values()].map((summary) => ({ ...summary, fields: [...summary.fields].sort() }));
}

const bufferedEvents = fc.array(
  fc.record({
    time: fc.integer({ min: 1_700_000_000_000_000, max: 1_700_000_100_000_000 }),
    raw: fc.string({ maxLength: 8 }),
    source: fc.option(fc.oneof(fc.constantFrom('nginx', 'auth', '', 'é'), fc.integer({ min: 0, max: 3 }), fc.boolean()), {
      nil: undefined,
    }),
    fields: fc.subarray(['status', 'path', 'user', 'ms']),
  }),
  { minLength: 1, maxLength: 40 },
);

describe('buffered chunk sources', () => {
  it('sums each source of a chunk as its events do, whatever the source column holds', () => {
    fc.assert(
      fc.property(bufferedEvents, (generated) => {
        const events: LogEvent[] = generated.map((event, row) => {
          const fields: Record<string, FieldValue> = {};
          if (event.source !== undefined) fields.source = event.source;
          for (const name of event.fields) fields[name] = row;
          return { time: event.time, raw: event.raw, index: 'main', fields };
        });
        // One hour bucket, one partition: a single chunk.
        const [chunk] = chunkEvents(events, { bucketSpanMicros: 3_600_000_000_000, partitions: 1 });
        const actual = sourcesOfChunk(chunk).map(({ storageBytes: _bytes, fields, ...summary }) => ({
          ...summary,
          fields: [...fields].sort(),
        }));
        assert.deepEqual(actual, expectedOfEvents(events));
      }),
      { numRuns: 400 },
    );
  });
});
