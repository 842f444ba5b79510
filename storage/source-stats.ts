/**
 * Per-source summaries of a row set (what `GET /sources` and `GET /fields?source=` report),
 * computed in the codec worker whenever a segment is written (flush and compaction).
 */
import { MAX_SOURCE_FIELDS, type SourceStats } from './segment/header';
import type { RowSet } from './segment/row-set';

export function sourceStatsOf(rows: RowSet): SourceStats[] {
  const sourceOfRow: string[] = new Array<string>(rows.count).fill('');
  const sourceColumn = rows.fields.get('source');
  if (sourceColumn !== undefined) {
    for (let i = 0; i < sourceColumn.rows.length; i++) {
      if (sourceColumn.rows[i] < rows.count) sourceOfRow[sourceColumn.rows[i]] = String(sourceColumn.values[i]);
    }
  }
  const byName = new Map<string, SourceStats & { fieldSet: Set<string> }>();
  const rawText = rows.rawText;
  for (let row = 0; row < rows.count; row++) {
    const name = sourceOfRow[row];
    let stats = byName.get(name);
    if (stats === undefined) {
      stats = { name, rows: 0, rawBytes: 0, minTime: Infinity, maxTime: -Infinity, fields: [], fieldSet: new Set() };
      byName.set(name, stats);
    }
    stats.rows++;
    stats.rawBytes += rawText === undefined ? Buffer.byteLength(rows.raws[row]) : rawText.ends[row] - (row === 0 ? 0 : rawText.ends[row - 1]);
    const time = rows.times[row];
    if (time < stats.minTime) stats.minTime = time;
    if (time > stats.maxTime) stats.maxTime = time;
  }
  for (const [field, column] of rows.fields) {
    // A field is attributed to every source that has at least one row with it.
    const seen = new Set<string>();
    for (let i = 0; i < column.rows.length; i++) {
      const row = column.rows[i];
      if (row >= rows.count) break;
      const name = sourceOfRow[row];
      if (seen.has(name)) continue;
      seen.add(name);
      const stats = byName.get(name);
      if (stats !== undefined && stats.fieldSet.size < MAX_SOURCE_FIELDS) stats.fieldSet.add(field);
      if (seen.size === byName.size) break;
    }
  }
  return [...byName.values()].map(({ fieldSet, ...stats }) => ({ ...stats, fields: [...fieldSet].sort() }));
}
