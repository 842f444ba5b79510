/**
 * The planner: AST -> physical plan. Rewrites that fire are recorded by name for explain:
 * desugaring (`top` -> stats+sort+head), the time range from the request, filter pushdown into
 * the scan (row filter plus pruning by column statistics and bloom tokens), projection pushdown,
 * head pushdown (newest first), and the split of `stats` into partial and final parts. What a
 * stage becomes is its module's part (stage.ts); this file walks the stages.
 */
import type { BatchOp } from '../plan/operators';
import type { Boundary, QueryPlan, RowOp, ScanSpec } from '../plan/plan';
import { projection } from '../plan/projection';
import { resolveField, Schema } from '../plan/schema';
import type { EvalContext } from '../value';
import { stageToString } from './print';
import { stageModule, type Query, type Stage } from './registry';
import type { PlanPlace, ScanPushdown } from './stage';

export interface PlanOptions {
  fromMicros: number;
  toMicros: number;
  nowMicros: number;
}

/** What the shards run: the scan, the streaming operators, and where they hand over. */
interface ShardPart {
  scan: ScanSpec;
  ops: BatchOp[];
  opLabels: string[];
  boundary: Boundary;
  rewrites: string[];
  /** How many stages (after `from`) the shards took; the rest run at the coordinator. */
  stagesTaken: number;
}

/** What the coordinator runs on the merged rows. */
interface CoordinatorPart {
  ops: RowOp[];
  opLabels: string[];
}

export function planQuery(query: Query, options: PlanOptions): QueryPlan {
  const ctx = evalContext(options);
  const [from, ...stages] = query.stages;
  const indexPatterns = indexPatternsOf(from);
  const schema = new Schema();
  const shard = planShardPart(stages, schema, ctx);
  const coordinator = planCoordinatorPart(stages.slice(shard.stagesTaken), { schema, ctx });
  shard.scan.columns = projection(shard.ops, shard.boundary);
  return {
    query,
    indexPatterns,
    ctx,
    scan: shard.scan,
    shardOps: shard.ops,
    shardOpLabels: shard.opLabels,
    boundary: shard.boundary,
    rowOps: coordinator.ops,
    rowOpLabels: coordinator.opLabels,
    resultKind: query.stages.some((stage) => stageModule(stage.kind).aggregates === true) ? 'aggregate' : 'events',
    columns: (schema.columns ?? []).map((name) => ({ name, type: schema.typeOf(name) })),
    finalTypes: new Map(schema.types),
    rewrites: rewritesOf(shard),
  };
}

function evalContext(options: PlanOptions): EvalContext {
  return { nowMicros: options.nowMicros, fromMicros: options.fromMicros, toMicros: options.toMicros };
}

function indexPatternsOf(from: Stage): string[] {
  if (from.kind !== 'from') throw new Error('a query starts with from');
  return from.indexes.map((pattern) => pattern.pattern);
}

/**
 * The stages every shard runs, up to the first that needs rows from all shards. Filters are pushed
 * into the scan until a stage hides stored names.
 */
function planShardPart(stages: Stage[], schema: Schema, ctx: EvalContext): ShardPart {
  const part: ShardPart = {
    scan: { columns: null, tokens: [], rawLiterals: [], predicates: [], filters: [] },
    ops: [],
    opLabels: [],
    boundary: { kind: 'events' },
    rewrites: [],
    stagesTaken: stages.length,
  };
  const pushdown: ScanPushdown = { scan: part.scan, schema, storedName: (name) => storedName(name, schema) };
  let pushable = true;
  for (let index = 0; index < stages.length; index++) {
    const stage = stages[index];
    const module = stageModule(stage.kind);
    if (pushable && module.pushDown !== undefined) {
      const rewrite = module.pushDown(stage, pushdown);
      if (rewrite !== null) part.rewrites.push(rewrite);
    }
    pushable = pushable && !(module.hidesStoredNames?.(stage) ?? false);
    if (module.atShard === undefined) throw new Error(`stage ${stage.kind} cannot run here`);
    const step = module.atShard(stage, { schema, ctx, next: stages[index + 1] });
    if (step.kind === 'handOver') {
      part.boundary = step.boundary;
      part.rewrites.push(...step.rewrites);
      part.stagesTaken = index + step.consumed;
      break;
    }
    part.ops.push(step.op);
    part.opLabels.push(stageToString(stage));
  }
  return part;
}

/** The stored column a name reads, or null when a stage before defined it. */
function storedName(name: string, schema: Schema): string | null {
  const resolved = resolveField(name);
  return schema.defined.has(resolved) ? null : resolved;
}

/** The stages after the hand-over, each compiled to run on the merged rows. */
function planCoordinatorPart(stages: Stage[], place: PlanPlace): CoordinatorPart {
  const part: CoordinatorPart = { ops: [], opLabels: [] };
  for (const stage of stages) {
    const module = stageModule(stage.kind);
    if (module.atCoordinator === undefined) throw new Error(`stage ${stage.kind} cannot run here`);
    part.ops.push(module.atCoordinator(stage, place));
    part.opLabels.push(stageToString(stage));
  }
  return part;
}

/** Each rewrite once, in the order they fired, the time range first and the projection last. */
function rewritesOf(shard: ShardPart): string[] {
  const rewrites = ['time range from the request', ...shard.rewrites];
  if (shard.scan.columns !== null) rewrites.push(`projection [${shard.scan.columns.join(', ')}]`);
  return [...new Set(rewrites)];
}
