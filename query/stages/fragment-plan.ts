/**
 * The plan a node makes of a query fragment. Every node plans the query text the same way; a
 * `head N` asked of several nodes may carry the fragment's newest share, a count below N: each of
 * n nodes holds about N/n of the newest rows, so each decodes and sends that many, not N
 * (coordinator/newest-share.ts decides the share and asks again where it fell short).
 */
import { planQuery } from './planner';
import { parseQuery } from './index';
import type { QueryPlan } from '../plan/plan';
import type { SessionSpec } from '../exec/worker-protocol';

export function planFragment(spec: SessionSpec): QueryPlan {
  const plan = planQuery(parseQuery(spec.text, spec.variables), {
    fromMicros: spec.fromMicros,
    toMicros: spec.toMicros,
    nowMicros: spec.nowMicros,
  });
  const share = spec.newestShare;
  if (share === undefined || plan.boundary.kind !== 'head' || share >= plan.boundary.count) return plan;
  return { ...plan, boundary: { kind: 'head', count: share } };
}
