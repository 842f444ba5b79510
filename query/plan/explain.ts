/**
 * `native_plan`: the plan as readable text, one operator a line, indented by depth (the
 * outermost first), after a line listing the rewrites that fired.
 */
import { formatTime } from '../value';
import type { QueryPlan } from './plan';

function describePredicate(predicate: { column: string; oneOf?: unknown[]; min?: number; max?: number }): string {
  if (predicate.oneOf !== undefined) return `${predicate.column} in ${JSON.stringify(predicate.oneOf)}`;
  if (predicate.min !== undefined) return `${predicate.column} >= ${predicate.min}`;
  if (predicate.max !== undefined) return `${predicate.column} <= ${predicate.max}`;
  return `${predicate.column} is not null`;
}

function capitalized(label: string): string {
  return label.charAt(0).toUpperCase() + label.slice(1);
}

export function explainPlan(plan: QueryPlan): string {
  const lines: string[] = [`rewrites: ${plan.rewrites.join('; ')}`];
  const boundary = plan.boundary;
  switch (boundary.kind) {
    case 'stats':
      lines.push('Gather (merge partial stats)');
      break;
    case 'events':
      lines.push('Gather (newest rows by _time, paged by offset/limit)');
      break;
    case 'head':
      lines.push(`Gather (newest ${boundary.count} rows by _time)`);
      break;
    case 'sorted':
      lines.push(`Gather (merge sorted rows, ${boundary.count === null ? 'the page' : `first ${boundary.count}`})`);
      break;
    case 'rows':
      lines.push('Gather (all rows, newest first)');
      break;
    default:
      throw new Error(`no explain text for boundary ${(boundary satisfies never as { kind: string }).kind}`);
  }
  const body: string[] = [...plan.rowOpLabels].reverse().map(capitalized);
  if (boundary.kind === 'stats') {
    const keys = boundary.spec.keys.map((key) => key.name);
    const aggregates = boundary.spec.aggregates.map((aggregate) => aggregate.name);
    const text = `Stats ${aggregates.join(', ')}${keys.length > 0 ? ` by ${keys.join(', ')}` : ''}`;
    body.push(`${text} [final]`);
    if (boundary.top !== null) body.unshift(`Top ${boundary.top.count} (rank by count within group, percent)`);
  }
  const pushed = new Set(plan.scan.filters);
  for (const label of [...plan.shardOpLabels].reverse()) {
    if (pushed.has(label) || pushed.has(label.replace(/^where /, ''))) continue;
    body.push(capitalized(label));
  }
  const parts = [`Scan ${plan.indexPatterns.join(', ')}`, `time=[${formatTime(plan.ctx.fromMicros)}, ${formatTime(plan.ctx.toMicros)})`];
  if (plan.scan.filters.length > 0) parts.push(`filter=(${plan.scan.filters.join(') and (')})`);
  if (plan.scan.tokens.length > 0) parts.push(`bloom=[${plan.scan.tokens.join(',')}]`);
  if (plan.scan.predicates.length > 0) parts.push(`prune=[${plan.scan.predicates.map(describePredicate).join('; ')}]`);
  parts.push(`columns=[${plan.scan.columns === null ? '*' : plan.scan.columns.join(',')}]`);
  if (boundary.kind === 'stats') parts.push('[partial stats]');
  if (boundary.kind === 'head') parts.push(`[limit ${boundary.count}, newest first]`);
  if (boundary.kind === 'sorted') parts.push(`[${boundary.label}, first ${boundary.count ?? 'offset+limit'} per shard]`);
  body.push(parts.join(' '));
  body.forEach((line, depth) => lines.push(`${'  '.repeat(depth + 1)}${line}`));
  return lines.join('\n');
}
