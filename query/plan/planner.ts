/**
 * The planner: AST -> physical plan. Rewrites that fire are recorded by name for explain:
 * desugaring (`top` -> stats+sort+head), the time range from the request, filter pushdown into
 * the scan (row filter plus pruning by column statistics and bloom tokens), projection pushdown,
 * head pushdown (newest first), and the split of `stats` into partial and final parts.
 */
import { AGGREGATES_IMPL } from '../aggregates';
import { createExtractor } from '../parse';
import type { AggregateCall, Query, Stage, StatsStage, TopStage } from '../syntax/ast';
import { exprToString } from '../syntax/names';
import { stageToString } from '../syntax/print';
import type { EvalContext, StaticType } from '../value';
import { nameMatcher, type BatchOp } from '../exec/batch-ops';
import { compileExpr } from '../exec/compile-expr';
import { compileSearch, requiredRawLiterals, requiredTokens } from '../exec/compile-search';
import type { CompileEnv, CompiledExpr } from '../exec/compiled';
import type { StatsAggregateSpec, StatsSpec } from '../exec/stats';
import type { Boundary, QueryPlan, RowOp, ScanSpec, TopFinish } from './plan';
import { pruningPredicates } from './pushdown';

/** Field aliases from the ingest mapping (event-collector names). */
const FIELD_ALIASES: Record<string, string> = { _timestamp: '_time', _source: 'source', _sourcetype: 'sourcetype' };

export function resolveField(name: string): string {
  return FIELD_ALIASES[name] ?? name;
}

export interface PlanOptions {
  fromMicros: number;
  toMicros: number;
  nowMicros: number;
}

/** Field types and column order as the pipeline transforms them. */
class Schema {
  readonly types = new Map<string, StaticType>([['_time', 'time']]);
  /** Names a stage defined (not stored columns), for pushdown decisions. */
  readonly defined = new Set<string>();
  /** Output columns in order, once a stats/top fixed them (null: event fields). */
  columns: string[] | null = null;

  typeOf(name: string): StaticType {
    return this.types.get(name) ?? 'any';
  }

  define(name: string, type: StaticType): void {
    this.types.set(name, type);
    this.defined.add(name);
    if (this.columns !== null && !this.columns.includes(name)) this.columns.push(name);
  }
}

function env(schema: Schema, ctx: EvalContext): CompileEnv {
  return { ctx, typeOf: (name) => schema.typeOf(name), resolveField };
}

function compileStats(stage: StatsStage, schema: Schema, ctx: EvalContext): StatsSpec {
  const compileEnv = env(schema, ctx);
  const keys = stage.by.map((key) => ({ name: key.name, expr: compileExpr(key.expr, compileEnv) }));
  const aggregates = stage.aggregates.map((aggregate) => compileAggregate(aggregate.call, aggregate.name, compileEnv, ctx));
  return { keys, aggregates };
}

function compileAggregate(call: AggregateCall, name: string, compileEnv: CompileEnv, ctx: EvalContext): StatsAggregateSpec {
  const arg: CompiledExpr | null = call.args.length > 0 && call.name !== 'rate' ? compileExpr(call.args[0], compileEnv) : null;
  const second = call.args[1];
  const parameter = call.name === 'percentile' && second !== undefined && second.kind === 'number' ? second.value : null;
  const site = { name: call.name, argType: arg?.type ?? 'any', parameter, ctx, argCount: call.args.length };
  return { name, factory: AGGREGATES_IMPL[call.name], site, arg, countif: call.name === 'countif' };
}

/** `top N f by g` as stats: count() by g, f (the ranking runs on the merged counts). */
function desugarTop(stage: TopStage, schema: Schema, ctx: EvalContext): { spec: StatsSpec; finish: TopFinish } {
  const compileEnv = env(schema, ctx);
  const fields = [...stage.by, ...stage.fields];
  const keys = fields.map((field) => ({
    name: field.name,
    expr: compileExpr({ kind: 'field', name: field.name, pos: field.pos }, compileEnv),
  }));
  const count = compileAggregate({ kind: 'aggregate', name: 'count', args: [], column: null, pos: stage.pos }, 'count', compileEnv, ctx);
  return { spec: { keys, aggregates: [count] }, finish: { count: stage.count, byCount: stage.by.length, fieldCount: stage.fields.length } };
}

function statsSchema(spec: StatsSpec, schema: Schema, top: TopFinish | null): void {
  const types: [string, StaticType][] = [
    ...spec.keys.map((key): [string, StaticType] => [key.name, key.expr.type]),
    ...spec.aggregates.map((aggregate): [string, StaticType] => [aggregate.name, aggregate.factory.resultType(aggregate.site)]),
  ];
  if (top !== null) types.push(['percent', 'number']);
  schema.types.clear();
  schema.defined.clear();
  for (const [name, type] of types) {
    schema.types.set(name, type);
    schema.defined.add(name);
  }
  schema.columns = types.map(([name]) => name);
}

/** Compiles a streaming stage into a batch operator and updates the schema. */
function streamingOp(stage: Stage, schema: Schema, ctx: EvalContext): BatchOp | null {
  const compileEnv = env(schema, ctx);
  switch (stage.kind) {
    case 'where':
      return { kind: 'filter', predicate: compileExpr(stage.expr, compileEnv) };
    case 'search':
      return { kind: 'filter', predicate: compileSearch(stage.expr, resolveField) };
    case 'extend': {
      const assignments = stage.assignments.map((assignment) => {
        const expr = compileExpr(assignment.expr, env(schema, ctx));
        schema.define(assignment.name, expr.type);
        return { name: assignment.name, expr };
      });
      return { kind: 'extend', assignments };
    }
    case 'parse': {
      const extractor = createExtractor(stage.format, stage.pattern?.value ?? null);
      for (const name of extractor.fields ?? []) schema.define(name, 'any');
      // Formats whose pattern names the fields may overwrite them; the others only fill gaps.
      const overwrite = stage.format === 'regex' || stage.format === 'pattern';
      return { kind: 'parse', field: resolveField(stage.field.name), extractor, overwrite };
    }
    case 'keep': {
      const patterns = stage.fields.map((field) => nameMatcher(field.pattern, field.glob && !field.quoted));
      if (schema.columns !== null) schema.columns = schema.columns.filter((name) => patterns.some((pattern) => pattern.test(name)));
      for (const pattern of patterns) if (!pattern.glob) schema.defined.add(pattern.text);
      return { kind: 'keep', patterns };
    }
    case 'drop': {
      const patterns = stage.fields.map((field) => nameMatcher(field.pattern, field.glob && !field.quoted));
      if (schema.columns !== null) schema.columns = schema.columns.filter((name) => !patterns.some((pattern) => pattern.test(name)));
      return { kind: 'drop', patterns };
    }
    case 'rename': {
      const pairs = stage.renames.map((rename) => ({ from: resolveField(rename.from.name), to: rename.to.name }));
      for (const { from, to } of pairs) {
        schema.types.set(to, schema.typeOf(from));
        schema.types.delete(from);
        schema.defined.add(to);
        schema.defined.add(from);
        if (schema.columns !== null) schema.columns = schema.columns.map((name) => (name === from ? to : name));
      }
      return { kind: 'rename', pairs };
    }
    default:
      return null;
  }
}

/** Compiles a stage that runs on merged rows at the coordinator. */
function rowOp(stage: Stage, schema: Schema, ctx: EvalContext): RowOp {
  switch (stage.kind) {
    case 'head':
      return { kind: 'head', count: stage.count };
    case 'tail':
      return { kind: 'tail', count: stage.count };
    case 'dedup':
      return { kind: 'dedup', fields: stage.fields.map((field) => resolveField(field.name)) };
    case 'sort': {
      const compileEnv = env(schema, ctx);
      return { kind: 'sort', keys: stage.keys.map((key) => ({ expr: compileExpr(key.expr, compileEnv), direction: key.direction })) };
    }
    case 'stats': {
      const spec = compileStats(stage, schema, ctx);
      statsSchema(spec, schema, null);
      return { kind: 'stats', spec, top: null };
    }
    case 'top': {
      const { spec, finish } = desugarTop(stage, schema, ctx);
      statsSchema(spec, schema, finish);
      return { kind: 'stats', spec, top: finish };
    }
    default: {
      const op = streamingOp(stage, schema, ctx);
      if (op === null) throw new Error(`stage ${stage.kind} cannot run here`);
      return { kind: 'batch', op };
    }
  }
}

/** Aggregates that order values by `_time`: they read it even when no expression names it. */
const TIME_ORDERED_AGGREGATES = new Set(['first', 'last', 'earliest', 'latest']);

/** Stored columns the shard must decode (null = all), from what the operators read. */
function projection(shardOps: BatchOp[], boundary: Boundary): string[] | null {
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

export function planQuery(query: Query, options: PlanOptions): QueryPlan {
  const ctx: EvalContext = { nowMicros: options.nowMicros, fromMicros: options.fromMicros, toMicros: options.toMicros };
  const [from, ...stages] = query.stages;
  if (from.kind !== 'from') throw new Error('a query starts with from');
  const schema = new Schema();
  const rewrites: string[] = ['time range from the request'];
  const scan: ScanSpec = { columns: null, tokens: [], rawLiterals: [], predicates: [], filters: [] };
  const shardOps: BatchOp[] = [];
  const shardOpLabels: string[] = [];
  let boundary: Boundary = { kind: 'events' };
  let index = 0;
  let pushable = true;
  const storedName = (name: string): string | null => {
    const resolved = resolveField(name);
    return schema.defined.has(resolved) ? null : resolved;
  };

  for (; index < stages.length; index++) {
    const stage = stages[index];
    if (stage.kind === 'head') {
      boundary = { kind: 'head', count: stage.count };
      rewrites.push(`head ${stage.count} pushed into scan (newest first)`);
      index++;
      break;
    }
    if (stage.kind === 'stats') {
      const spec = compileStats(stage, schema, ctx);
      boundary = { kind: 'stats', spec, top: null };
      statsSchema(spec, schema, null);
      rewrites.push('stats split into partial (per segment) and final (merge)');
      index++;
      break;
    }
    if (stage.kind === 'top') {
      const { spec, finish } = desugarTop(stage, schema, ctx);
      boundary = { kind: 'stats', spec, top: finish };
      statsSchema(spec, schema, finish);
      rewrites.push('top -> stats+sort+head', 'stats split into partial (per segment) and final (merge)');
      index++;
      break;
    }
    if (stage.kind === 'sort') {
      const next = stages[index + 1];
      const last = index === stages.length - 1;
      if (next?.kind === 'head' || last) {
        const compileEnv = env(schema, ctx);
        const keys = stage.keys.map((key) => ({ expr: compileExpr(key.expr, compileEnv), direction: key.direction }));
        const count = next?.kind === 'head' ? next.count : null;
        boundary = { kind: 'sorted', keys, count, label: stageToString(stage) };
        rewrites.push(count === null ? 'sort pushed into scan (each shard keeps the page)' : `sort+head ${count} pushed into scan (top ${count} per shard)`);
        index += count === null ? 1 : 2;
        break;
      }
    }
    if (stage.kind === 'sort' || stage.kind === 'tail' || stage.kind === 'dedup') {
      boundary = { kind: 'rows' };
      break;
    }
    if (stage.kind === 'where' && pushable) {
      const predicates = pruningPredicates(stage.expr, storedName);
      scan.predicates.push(...predicates);
      scan.filters.push(exprToString(stage.expr));
      rewrites.push('where pushed into scan');
    } else if (stage.kind === 'search' && pushable && !schema.defined.has('_raw')) {
      const tokens = requiredTokens(stage.expr, resolveField);
      scan.tokens.push(...tokens.filter((token) => !scan.tokens.includes(token)));
      scan.rawLiterals.push(...requiredRawLiterals(stage.expr).filter((literal) => !scan.rawLiterals.includes(literal)));
      scan.filters.push(stageToString(stage));
      rewrites.push(tokens.length > 0 ? `search pushed into scan (bloom tokens ${JSON.stringify(tokens)})` : 'search pushed into scan');
    } else if (stage.kind !== 'where' && stage.kind !== 'search') {
      // After a rename, or a parse whose fields are not known in advance (json, kv, logfmt, syslog),
      // a name may not be a stored column: later filters only run as row filters.
      pushable = pushable && stage.kind !== 'rename' && !(stage.kind === 'parse' && !['regex', 'pattern', 'combined', 'clf'].includes(stage.format));
    }
    const op = streamingOp(stage, schema, ctx);
    if (op !== null) {
      shardOps.push(op);
      shardOpLabels.push(stageToString(stage));
    }
  }

  const rowOps: RowOp[] = [];
  const rowOpLabels: string[] = [];
  for (; index < stages.length; index++) {
    rowOps.push(rowOp(stages[index], schema, ctx));
    rowOpLabels.push(stageToString(stages[index]));
  }

  scan.columns = projection(shardOps, boundary);
  if (scan.columns !== null) rewrites.push(`projection [${scan.columns.join(', ')}]`);
  const aggregate = query.stages.some((stage) => stage.kind === 'stats' || stage.kind === 'top');
  return {
    query,
    indexPatterns: from.indexes.map((pattern) => pattern.pattern),
    ctx,
    scan,
    shardOps,
    shardOpLabels,
    boundary,
    rowOps,
    rowOpLabels,
    resultKind: aggregate ? 'aggregate' : 'events',
    columns: (schema.columns ?? []).map((name) => ({ name, type: schema.typeOf(name) })),
    finalTypes: new Map(schema.types),
    rewrites: [...new Set(rewrites)],
  };
}
