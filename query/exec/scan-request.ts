/** The storage scan a plan reads: indexes, time range, columns and pruning hints, newest first. */
import type { ScanRequest } from '../../storage/scan';
import { indexMatcher } from '../../storage/scan';
import { tokenize } from '../../storage/segment/tokenizer';
import type { QueryPlan } from '../plan/plan';

export function scanRequestOf(plan: QueryPlan): ScanRequest {
  return {
    index: indexMatcher(plan.indexPatterns),
    fromMicros: plan.ctx.fromMicros,
    toMicros: plan.ctx.toMicros,
    columns: plan.scan.columns,
    tokens: plan.scan.tokens,
    rawTokens: [...new Set(plan.scan.rawLiterals.flatMap((literal) => tokenize(literal)))],
    predicates: plan.scan.predicates,
    order: 'desc',
  };
}
