/**
 * Streaming stages over column batches: `where`/`search` narrow the selection, `extend` and
 * `parse` add columns, `keep`/`drop`/`rename` reshape the column set. The same operators run on
 * shards (over stored columns) and on the coordinator (over rows turned back into a batch).
 */
import { globMatches } from '../../storage/glob';
import type { Column } from '../../storage/core/column';
import { columnFromValues } from '../../storage/core/column-build';
import type { BatchOp, NameMatcher } from '../plan/operators';
import type { Value } from '../value';
import { valueAt } from './access';
import { selectTrue } from './compiled';
import type { Batch } from './vectors';

// The operator types are part of the plan (plan/operators.ts); this module runs them.
export type { BatchOp, NameMatcher } from '../plan/operators';

export function nameMatcher(pattern: string, glob: boolean): NameMatcher {
  if (!glob) return { text: pattern, glob, test: (name) => name === pattern };
  return { text: pattern, glob, test: (name) => globMatches(pattern, name) };
}

/** Applies one operator; returns the new selection count (the selection array is narrowed in place). */
export function applyBatchOp(op: BatchOp, batch: Batch, sel: Uint32Array, n: number): number {
  switch (op.kind) {
    case 'filter':
      return selectTrue(op.predicate, batch, sel, n);
    case 'extend':
      // Later assignments see earlier ones: each result enters the batch before the next runs.
      for (const assignment of op.assignments) batch.columns.set(assignment.name, assignment.expr.evaluate(batch, sel, n));
      return n;
    case 'parse':
      applyParse(op, batch, sel, n);
      return n;
    case 'keep': {
      const kept = new Map<string, Column>();
      for (const pattern of op.patterns) {
        if (!pattern.glob) {
          kept.set(pattern.text, batch.columns.get(pattern.text) ?? { kind: 'const', value: null, length: batch.rowCount });
          continue;
        }
        for (const name of [...batch.columns.keys()].sort()) {
          if (pattern.test(name) && !kept.has(name)) kept.set(name, batch.columns.get(name) as Column);
        }
      }
      batch.columns = kept;
      return n;
    }
    case 'drop':
      for (const name of [...batch.columns.keys()]) if (op.patterns.some((pattern) => pattern.test(name))) batch.columns.delete(name);
      return n;
    case 'rename':
      for (const { from, to } of op.pairs) {
        const column = batch.columns.get(from);
        batch.columns.delete(from);
        if (column !== undefined) batch.columns.set(to, column);
        else batch.columns.delete(to);
      }
      return n;
  }
}

function applyParse(op: Extract<BatchOp, { kind: 'parse' }>, batch: Batch, sel: Uint32Array, n: number): void {
  const source = batch.columns.get(op.field);
  if (source === undefined) return;
  const extracted = new Map<string, Value[]>();
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    const value = valueAt(source, row);
    if (value === null) continue;
    const fields = op.extractor.extract(typeof value === 'string' ? value : String(value));
    for (const name in fields) {
      const field = fields[name];
      if (field === null) continue;
      let values = extracted.get(name);
      if (values === undefined) {
        values = new Array<Value>(batch.rowCount).fill(null);
        extracted.set(name, values);
      }
      values[row] = field;
    }
  }
  for (const [name, values] of extracted) {
    const existing = batch.columns.get(name);
    if (existing !== undefined) {
      // Rows without a match keep their field. Where both have a value, an extracted one wins only
      // for formats whose pattern names the field (regex, pattern).
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const current = valueAt(existing, row);
        if (current !== null && (values[row] === null || !op.overwrite)) values[row] = current;
      }
    }
    batch.columns.set(name, columnFromValues(values));
  }
}
