// `stats count(), avg(ms) as avg by host, bin(_time, 5m)`: aggregates per group. Split into a
// partial part every shard computes and a final merge at the coordinator (query/exec/stats.ts).

import { AGGREGATES_IMPL } from '../aggregates';
import { compileExpr } from '../exec/compile-expr';
import type { CompileEnv, CompiledExpr, StatsAggregateSpec, StatsSpec } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { AggregateCall, Expr, FieldName, Pos } from '../syntax/ast';
import { listOf, stagePos, type Aliased } from '../syntax/builders';
import { show } from '../syntax/errors';
import { isAggregateFunction, isScalarFunction } from '../syntax/functions';
import type { Token } from '../syntax/lexer';
import { assignColumnNames, defaultAggregateName, defaultKeyName } from '../syntax/names';
import { exprToString, nameToString } from '../syntax/print';
import { checkAggregateCall, checkExpr, type ExprScope } from '../syntax/validate-expr';
import type { EvalContext } from '../value';
import type { StageModule, ValidationContext } from './stage';
import { TIME_COLUMN } from '../../storage/core/event';

/** One aggregate column; `name` is the output column (alias or the default from names.ts). */
export interface StatsAggregate {
  call: AggregateCall;
  alias: string | null;
  name: string;
  pos: Pos;
}
/** One group key: a field, `bin(field, size)` or another scalar expression; `name` as above. */
export interface StatsKey {
  expr: Expr;
  alias: string | null;
  name: string;
  pos: Pos;
}
/** Output columns: keys first, then aggregates. `aggregates` may be empty (`stats by host`). */
export interface StatsStage {
  kind: 'stats';
  aggregates: StatsAggregate[];
  by: StatsKey[];
  pos: Pos;
}
export interface ParsedStatsStage {
  kind: 'stats';
  aggregates: Aliased[];
  by: Aliased[];
  pos: Pos;
}

/** The rewrite every stats boundary records (top's too). */
export const STATS_SPLIT_REWRITE = 'stats split into partial (per segment) and final (merge)';

export const stats: StageModule<ParsedStatsStage, StatsStage> = {
  name: 'stats',
  argumentLexing: 'main',
  streaming: false,
  aggregates: true,
  /** `stats aggs`, `stats aggs by keys`, `stats by keys`. */
  build(match) {
    const d = match.data;
    const byAt = d.findIndex((x) => (x as Token).type === 'kw_by');
    const aggregates = byAt === 1 ? [] : listOf<Aliased>(d[1]);
    const by = byAt < 0 ? [] : listOf<Aliased>(d[byAt + 1]);
    return { kind: 'stats', aggregates, by, pos: stagePos(match) };
  },
  validate: validateStats,
  print(s) {
    const aggs = s.aggregates.map((a) => exprToString(a.call) + aliasText(a.alias)).join(', ');
    const by = s.by.map((k) => exprToString(k.expr) + aliasText(k.alias)).join(', ');
    return ['stats', aggs, by ? `by ${by}` : ''].filter((x) => x !== '').join(' ');
  },
  atShard(s, { schema, ctx }) {
    const spec = compileStats(s, schema, ctx);
    schema.becomeStatsColumns(spec, null);
    const step = countsPerInterval(s);
    const boundary = { kind: 'stats' as const, spec, top: null, ...(step === null ? {} : { countsPerInterval: step }) };
    return { kind: 'handOver', boundary, rewrites: [STATS_SPLIT_REWRITE], consumed: 1 };
  },
  atCoordinator(s, { schema, ctx }) {
    const spec = compileStats(s, schema, ctx);
    schema.becomeStatsColumns(spec, null);
    return { kind: 'stats', spec, top: null };
  },
};

/**
 * The step of a `stats count() by bin(_time, <duration>)` (any number of `count()` columns, one
 * key), in microseconds; null for any other stats. Such a count needs no event read.
 */
export function countsPerInterval(s: StatsStage): number | null {
  if (s.by.length !== 1 || s.aggregates.length === 0) return null;
  if (!s.aggregates.every((a) => a.call.name === 'count' && a.call.args.length === 0)) return null;
  const key = s.by[0].expr;
  if (key.kind !== 'call' || key.name !== 'bin' || key.args.length !== 2) return null;
  const [time, size] = key.args;
  if (time.kind !== 'field' || time.name !== TIME_COLUMN || size.kind !== 'duration' || !(size.micros > 0)) return null;
  return size.micros;
}

const aliasText = (alias: string | null): string => (alias === null ? '' : ` as ${nameToString(alias)}`);

function validateStats(s: ParsedStatsStage, context: ValidationContext): StatsStage {
  const aggregates: Array<{ call: AggregateCall; alias: FieldName | null; pos: Pos }> = [];
  for (const item of s.aggregates) {
    const call = statsAggregate(item.expr, context);
    if (call) aggregates.push({ call, alias: item.alias, pos: item.expr.pos });
  }
  const keyScope: ExprScope = { errors: context.errors, columns: null, inAggregate: false, place: 'in a stats by key' };
  const keys = s.by.map((k) => ({ expr: checkExpr(k.expr, keyScope), alias: k.alias, pos: k.expr.pos }));
  const items = [
    ...keys.map((k) => ({ alias: k.alias?.name ?? null, defaultName: defaultKeyName(k.expr), pos: k.alias?.pos ?? k.pos })),
    ...aggregates.map((a) => ({ alias: a.alias?.name ?? null, defaultName: defaultAggregateName(a.call), pos: a.alias?.pos ?? a.pos })),
  ];
  const { names, duplicateAliases } = assignColumnNames(items);
  for (const i of duplicateAliases)
    context.error('E001', `duplicate column name ${show(items[i]!.alias!)} in stats`, items[i]!.pos, `${items[i]!.alias!}_2`);
  const by: StatsKey[] = keys.map((k, i) => ({ expr: k.expr, alias: k.alias?.name ?? null, name: names[i]!, pos: k.pos }));
  const aggs: StatsAggregate[] = aggregates.map((a, i) => ({
    call: a.call,
    alias: a.alias?.name ?? null,
    name: names[keys.length + i]!,
    pos: a.pos,
  }));
  context.columns = new Map();
  for (const a of aggs) {
    const text = exprToString(a.call);
    if (!context.columns.has(text)) context.columns.set(text, a.name);
  }
  return { kind: 'stats', aggregates: aggs, by, pos: s.pos };
}

/** A stats column must be one aggregate call; anything else is E010 (or E004 for unknown names). */
function statsAggregate(e: Expr, context: ValidationContext): AggregateCall | null {
  const scope: ExprScope = { errors: context.errors, columns: null, inAggregate: false, place: 'in stats' };
  if (e.kind === 'call' && isAggregateFunction(e.name)) return checkAggregateCall(e, scope, 0);
  if (e.kind === 'call' && !isScalarFunction(e.name)) {
    checkExpr(e, scope); // E004 with the nearest name
  } else if (e.kind === 'field' && isAggregateFunction(e.name)) {
    context.error('E010', `stats needs aggregate calls: write ${e.name}() instead of ${e.name}`, e.pos, `${e.name}()`);
  } else if (
    e.kind === 'binary' &&
    e.op === '=' &&
    e.left.kind === 'field' &&
    e.right.kind === 'call' &&
    isAggregateFunction(e.right.name)
  ) {
    const before = context.errors.length;
    const call = checkAggregateCall(e.right, scope, 1);
    const text = context.errors.length === before ? exprToString(call) : `${e.right.name}(...)`;
    context.error(
      'E010',
      `name a stats column with "as", e.g. count() as ${e.left.name}`,
      e.pos,
      short(`${text} as ${e.left.name}`, 'count() as n'),
    );
  } else if (e.kind === 'call') {
    // A scalar of each event is what groups: offer it as a key.
    context.error(
      'E010',
      `${e.name}() is not an aggregate; stats needs aggregates such as count() or avg(x)`,
      e.pos,
      short(`count() by ${exprToString(e)}`, 'count() by x'),
    );
  } else {
    const suggestion =
      e.kind === 'field'
        ? `count() by ${exprToString(e)}`
        : 'an aggregate such as count() or avg(x); compute expressions with extend after stats';
    context.error(
      'E010',
      'a stats column must be a single aggregate call such as count() or avg(x); compute expressions with extend after stats',
      e.pos,
      suggestion,
    );
  }
  return null;
}

/** A replacement text, or a generic one when it would be too long to be useful. */
function short(text: string, generic: string): string {
  return text.length <= 200 ? text : generic;
}

function compileStats(stage: StatsStage, schema: Schema, ctx: EvalContext): StatsSpec {
  const compileEnv = schema.compileEnv(ctx);
  const keys = stage.by.map((key) => ({ name: key.name, expr: compileExpr(key.expr, compileEnv) }));
  const aggregates = stage.aggregates.map((aggregate) => compileAggregate(aggregate.call, aggregate.name, compileEnv, ctx));
  return { keys, aggregates };
}

export function compileAggregate(call: AggregateCall, name: string, compileEnv: CompileEnv, ctx: EvalContext): StatsAggregateSpec {
  const arg: CompiledExpr | null = call.args.length > 0 && call.name !== 'rate' ? compileExpr(call.args[0], compileEnv) : null;
  const second = call.args[1];
  const parameter = call.name === 'percentile' && second !== undefined && second.kind === 'number' ? second.value : null;
  const site = { name: call.name, argType: arg?.type ?? 'any', parameter, ctx, argCount: call.args.length };
  return { name, factory: AGGREGATES_IMPL[call.name], site, arg, countif: call.name === 'countif' };
}
