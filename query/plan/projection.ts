/** Projection pushdown: the stored columns a shard must decode, from what its operators read. */
import type { BatchOp, CompiledExpr } from './operators';
import type { Boundary } from './plan';

/** Aggregates that order values by `_time`: they read it even when no expression names it. */
const TIME_ORDERED_AGGREGATES = new Set(['first', 'last', 'earliest', 'latest']);

/** Stored columns the shard must decode (null = all), from what the operators read. */
export function projection(shardOps: BatchOp[], boundary: Boundary): string[] | null {
  // Rows handed over as events are ordered by `_time`; partial stats need it only when read.
  const read = new Set<string>(boundary.kind === 'stats' ? [] : ['_time']);
  let kept: Set<string> | null = null;
  const readExpr = (expr: CompiledExpr): void => {
    for (const field of expr.fields) if (kept === null || kept.has(field)) read.add(field);
  };
  for (const op of shardOps) {
    switch (op.kind) {
      case 'filter':
        readExpr(op.predicate);
        break;
      case 'extend':
        op.assignments.forEach((assignment) => readExpr(assignment.expr));
        break;
      case 'parse':
        read.add(op.field);
        break;
      case 'rename':
        op.pairs.forEach((pair) => read.add(pair.from));
        break;
      case 'keep':
        if (op.patterns.some((pattern) => pattern.glob)) return null;
        if (boundary.kind !== 'stats') {
          op.patterns.forEach((pattern) => read.add(pattern.text));
          return [...read];
        }
        kept = new Set(op.patterns.map((pattern) => pattern.text));
        break;
      case 'drop':
        break;
    }
  }
  if (boundary.kind !== 'stats') return null;
  for (const key of boundary.spec.keys) readExpr(key.expr);
  for (const aggregate of boundary.spec.aggregates) {
    if (aggregate.arg !== null) readExpr(aggregate.arg);
    if (TIME_ORDERED_AGGREGATES.has(aggregate.site.name)) read.add('_time');
  }
  return [...read];
}
