/**
 * Per-source summaries of a row set (what `GET /sources` and `GET /fields?source=` report),
 * computed in the codec worker whenever a segment is written (flush and compaction). Sources are
 * numbered once, so the per-row and per-field loops index typed arrays instead of hashing names.
 */
import { MAX_SOURCE_FIELDS, type SourceStats } from './header';
import { isCoded, type RowSet } from './row-set';

/**
 * Source names numbered in order of first sight, for per-row typed arrays. Number 0 is '', which
 * stands for rows without a source (a source of '' reads the same).
 */
export class SourceNumbering {
  readonly names = [''];
  private readonly numbers = new Map<string, number>([['', 0]]);

  numberOf(name: string): number {
    let number = this.numbers.get(name);
    if (number === undefined) {
      number = this.names.length;
      this.names.push(name);
      this.numbers.set(name, number);
    }
    return number;
  }
}

export function sourceStatsOf(rows: RowSet): SourceStats[] {
  const n = rows.count;
  // Source number of each row.
  const sourceOfRow = new Uint32Array(n);
  const numbering = new SourceNumbering();
  const names = numbering.names;
  const sourceColumn = rows.fields.get('source');
  if (sourceColumn !== undefined && isCoded(sourceColumn)) {
    // Each distinct name is numbered once; the rows only index.
    const numberOfCode = sourceColumn.dict.map((name) => numbering.numberOf(name));
    for (let i = 0; i < sourceColumn.rows.length; i++) {
      const row = sourceColumn.rows[i];
      if (row < n) sourceOfRow[row] = numberOfCode[sourceColumn.codes[i]];
    }
  } else if (sourceColumn !== undefined) {
    for (let i = 0; i < sourceColumn.rows.length; i++) {
      const row = sourceColumn.rows[i];
      if (row < n) sourceOfRow[row] = numbering.numberOf(String(sourceColumn.values[i]));
    }
  }

  const count = names.length;
  const rowCounts = new Float64Array(count);
  const rawBytes = new Float64Array(count);
  const minTimes = new Float64Array(count).fill(Infinity);
  const maxTimes = new Float64Array(count).fill(-Infinity);
  // Sources in order of their first row, as they are reported.
  const present: number[] = [];
  const rawText = rows.rawText;
  for (let row = 0; row < n; row++) {
    const source = sourceOfRow[row];
    if (rowCounts[source]++ === 0) present.push(source);
    rawBytes[source] +=
      rawText === undefined ? Buffer.byteLength(rows.raws[row]) : rawText.ends[row] - (row === 0 ? 0 : rawText.ends[row - 1]);
    const time = rows.times[row];
    if (time < minTimes[source]) minTimes[source] = time;
    if (time > maxTimes[source]) maxTimes[source] = time;
  }

  const fieldSets = names.map(() => new Set<string>());
  const seen = new Uint8Array(count);
  for (const [field, column] of rows.fields) {
    // A field is attributed to every source that has at least one row with it.
    seen.fill(0);
    let distinct = 0;
    for (let i = 0; i < column.rows.length && distinct < present.length; i++) {
      const row = column.rows[i];
      if (row >= n) break;
      const source = sourceOfRow[row];
      if (seen[source] === 1) continue;
      seen[source] = 1;
      distinct++;
      if (fieldSets[source].size < MAX_SOURCE_FIELDS) fieldSets[source].add(field);
    }
  }
  return present.map((source) => ({
    name: names[source],
    rows: rowCounts[source],
    rawBytes: rawBytes[source],
    minTime: minTimes[source],
    maxTime: maxTimes[source],
    fields: [...fieldSets[source]].sort(),
  }));
}
