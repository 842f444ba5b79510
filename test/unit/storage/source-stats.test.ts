/** Per-source summaries of a row set, against a direct count over the rows. */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { FieldValue } from '../../../storage/event';
import type { SourceStats } from '../../../storage/segment/header';
import type { RowSet, SparseColumn } from '../../../storage/segment/row-set';
import { sourceStatsOf } from '../../../storage/source-stats';

/** The summaries computed row by row with plain objects, sources in order of first row. */
function expected(rows: RowSet): SourceStats[] {
  const sourceOf = (row: number): string => {
    const column = rows.fields.get('source');
    if (column === undefined) return '';
    for (let i = 0; i < column.rows.length; i++) if (column.rows[i] === row) return String(column.values[i]);
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
});
