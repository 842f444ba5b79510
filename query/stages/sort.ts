// `sort count desc, host`: rows in the order of the keys (nulls last), ties newest first. As the
// last stage, or before a `head N`, each shard keeps only its first rows in that order.

import { compileExpr } from '../exec/compile-expr';
import type { SortKey as CompiledSortKey } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { Pos, SortKey } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { exprToString } from '../syntax/print';
import { checkExpr } from '../syntax/validate-expr';
import type { EvalContext } from '../value';
import type { HeadStage } from './head';
import type { StageModule } from './stage';

export interface SortStage {
  kind: 'sort';
  keys: SortKey[];
  pos: Pos;
}

export const sort: StageModule<SortStage, SortStage> = {
  name: 'sort',
  argumentLexing: 'main',
  streaming: false,
  /** `sort keys`, and `sort by keys` as KQL writes it. */
  build: (match) => ({ kind: 'sort', keys: listOf(match.data[match.data.length - 1]), pos: stagePos(match) }),
  validate(s, context) {
    for (const k of s.keys) k.expr = checkExpr(k.expr, context.scope('in sort'));
    return s;
  },
  print: (s) => `sort ${s.keys.map((k) => `${exprToString(k.expr)} ${k.direction}`).join(', ')}`,
  atShard(s, { schema, ctx, next }) {
    const head = next?.kind === 'head' ? (next as HeadStage) : null;
    if (head === null && next !== undefined) return { kind: 'handOver', boundary: { kind: 'rows' }, rewrites: [], consumed: 0 };
    const count = head === null ? null : head.count;
    return {
      kind: 'handOver',
      boundary: { kind: 'sorted', keys: compileKeys(s, schema, ctx), count, label: sort.print(s) },
      rewrites: [
        count === null
          ? 'sort pushed into scan (each shard keeps the page)'
          : `sort+head ${count} pushed into scan (top ${count} per shard)`,
      ],
      consumed: count === null ? 1 : 2,
    };
  },
  atCoordinator: (s, { schema, ctx }) => ({ kind: 'sort', keys: compileKeys(s, schema, ctx) }),
};

function compileKeys(s: SortStage, schema: Schema, ctx: EvalContext): CompiledSortKey[] {
  const compileEnv = schema.compileEnv(ctx);
  return s.keys.map((key) => ({ expr: compileExpr(key.expr, compileEnv), direction: key.direction }));
}
