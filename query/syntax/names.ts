// Default output column names of `stats` (docs/language.md, "Default column names"):
// `count()` -> count, `count(user)` -> count_user, `avg(ms)` -> avg_ms, `percentile(ms, 95)` -> p95_ms,
// `countif(...)` -> countif; a repeated name gets `_2`, `_3`.

import type { AggregateCall, Expr } from './ast';
import { exprToString } from './print';

export { exprToString } from './print';

/** Characters outside a bare field name become `_`, so default names stay plain identifiers. */
function plain(text: string): string {
  return text.replace(/[^A-Za-z0-9_.@:-]+/g, '_').replace(/^_+|_+$/g, '') || 'expr';
}

/** The default column name of one aggregate call, before de-duplication. */
export function defaultAggregateName(call: AggregateCall): string {
  const field = call.args[0]?.kind === 'field' ? call.args[0].name : null;
  if (call.name === 'percentile') {
    const q = call.args[1];
    const qText = q?.kind === 'number' ? String(q.value).replace('.', '_') : '';
    return plain(field !== null ? `p${qText}_${field}` : `p${qText}`);
  }
  // "the function name, then `_` and the field for a one-field call"
  if (field !== null && call.args.length === 1 && call.name !== 'countif') return plain(`${call.name}_${field}`);
  return call.name;
}

/** The default column name of a stats key: the field, the field of `bin(field, ...)`, else its text. */
export function defaultKeyName(expr: Expr): string {
  if (expr.kind === 'field') return expr.name;
  if (expr.kind === 'call' && expr.name === 'bin' && expr.args[0]?.kind === 'field') return expr.args[0].name;
  return plain(exprToString(expr));
}

export interface NamedItem {
  /** The explicit `as` name, or null. */
  alias: string | null;
  /** The name to use when there is no alias. */
  defaultName: string;
}

/**
 * Output names for a list of columns (stats: keys first, then aggregates). Explicit aliases are kept
 * as written; a default name that is already taken gets `_2`, `_3`, ... Returns the names and the
 * indexes of aliases that repeat an earlier alias (an error for the caller).
 */
export function assignColumnNames(items: readonly NamedItem[]): { names: string[]; duplicateAliases: number[] } {
  const taken = new Set<string>();
  const duplicateAliases: number[] = [];
  items.forEach((item, i) => {
    if (item.alias === null) return;
    if (taken.has(item.alias)) duplicateAliases.push(i);
    taken.add(item.alias);
  });
  const names = items.map((item) => {
    if (item.alias !== null) return item.alias;
    let name = item.defaultName;
    for (let n = 2; taken.has(name); n++) name = `${item.defaultName}_${n}`;
    taken.add(name);
    return name;
  });
  return { names, duplicateAliases };
}

/** Output column names of a list of aggregates with optional aliases (e.g. a stats stage's). */
export function aggregateColumnNames(aggregates: ReadonlyArray<{ call: AggregateCall; alias: string | null }>): string[] {
  return assignColumnNames(aggregates.map((a) => ({ alias: a.alias, defaultName: defaultAggregateName(a.call) }))).names;
}
