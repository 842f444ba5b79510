/**
 * The ranking of `top` on the merged counts (query/stages/top.ts plans `top` as stats + this).
 */
import type { TopFinish } from '../plan/plan';
import type { Value } from '../value';
import { compareKeys, type StatsAccumulator } from './stats';

/**
 * `top`: percent of each value combination within its `by` group, the N most frequent per group.
 * The stats keys are the `by` keys then the field keys; the first aggregate is the count. Groups
 * are ranked in place: only the rows kept are built (a high-cardinality field has many groups).
 */
export function rankTop(accumulator: StatsAccumulator, top: TopFinish): { values: Value[]; percent: number }[] {
  const fieldsEnd = top.byCount + top.fieldCount;
  const counts = new Float64Array(accumulator.groupCount);
  for (let g = 0; g < counts.length; g++) counts[g] = accumulator.resultOf(g, 0) as number;
  // Most frequent first, ties by value ascending.
  const rank = (a: number, b: number): number => {
    const byCount = counts[b] - counts[a];
    if (byCount !== 0) return byCount;
    for (let k = top.byCount; k < fieldsEnd; k++) {
      const order = compareKeys(accumulator.keyOf(a, k), accumulator.keyOf(b, k));
      if (order !== 0) return order;
    }
    return 0;
  };
  const byKeys = (g: number): Value[] => Array.from({ length: top.byCount }, (_, k) => accumulator.keyOf(g, k));
  const groups = new Map<string, { key: Value[]; total: number; best: number[] }>();
  for (let g = 0; g < counts.length; g++) {
    const id = top.byCount === 0 ? '' : JSON.stringify(byKeys(g));
    let group = groups.get(id);
    if (group === undefined) {
      group = { key: byKeys(g), total: 0, best: [] };
      groups.set(id, group);
    }
    group.total += counts[g];
    // Keep only the N best per group: an insertion into a short sorted list, not a sort of all groups.
    const best = group.best;
    if (best.length === top.count && rank(g, best[best.length - 1]) >= 0) continue;
    let at = best.length;
    while (at > 0 && rank(g, best[at - 1]) < 0) at--;
    best.splice(at, 0, g);
    if (best.length > top.count) best.pop();
  }
  const ordered = [...groups.values()].sort((a, b) => {
    for (let k = 0; k < top.byCount; k++) {
      const order = compareKeys(a.key[k], b.key[k]);
      if (order !== 0) return order;
    }
    return 0;
  });
  const out: { values: Value[]; percent: number }[] = [];
  for (const group of ordered) {
    for (const g of group.best) {
      out.push({ values: accumulator.row(g), percent: group.total === 0 ? 0 : Math.round((counts[g] / group.total) * 100 * 1e4) / 1e4 });
    }
  }
  return out;
}
