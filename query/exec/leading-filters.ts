/**
 * The leading `where`/`search` operators of a plan's shard part, described as the block reader
 * needs them (storage/read/late-rows.ts): the fields they read are decoded first, and a first
 * `field <op> number` that nothing later reads runs on packed stored bytes.
 */
import type { LeadingFilters } from '../../storage/read/late-rows';
import type { QueryPlan } from '../plan/plan';
import type { CompiledExpr } from './compiled';

/**
 * Whether anything after the first shard operator reads `field`: a later operator, the stats
 * keys and aggregates, or the rows handed over (every field of an event).
 */
function readAfterFirst(plan: QueryPlan, field: string): boolean {
  const boundary = plan.boundary;
  if (boundary.kind !== 'stats') return true;
  const reads = (expr: CompiledExpr | null): boolean => expr !== null && expr.fields.has(field);
  const later = plan.shardOps.slice(1).some((op) => {
    if (op.kind === 'filter') return reads(op.predicate);
    if (op.kind === 'extend') return op.assignments.some((assignment) => reads(assignment.expr));
    // parse, keep, drop and rename name fields (or globs): assume they touch it.
    return true;
  });
  return later || boundary.spec.keys.some((key) => reads(key.expr)) || boundary.spec.aggregates.some((aggregate) => reads(aggregate.arg));
}

/** How many shard operators lead as filters, and their description for the block reader. */
export function leadingFiltersOf(plan: QueryPlan): { count: number; filters: LeadingFilters } {
  const fields = new Set<string>();
  let lead = 0;
  while (lead < plan.shardOps.length && plan.shardOps[lead].kind === 'filter') {
    const op = plan.shardOps[lead];
    if (op.kind === 'filter') for (const field of op.predicate.fields) fields.add(field);
    lead++;
  }
  const first = plan.shardOps[0];
  const comparison = lead > 0 && first.kind === 'filter' ? first.predicate.numberComparison : undefined;
  const packed = comparison !== undefined && !readAfterFirst(plan, comparison.field) ? comparison : null;
  // A newest-N boundary behind nothing but filters decodes the rest of a row only once it may enter.
  const newest = (plan.boundary.kind === 'head' || plan.boundary.kind === 'events') && lead === plan.shardOps.length;
  return { count: lead, filters: { lateColumns: lead > 0 || newest, fields, packed, rawLiterals: plan.scan.rawLiterals } };
}
