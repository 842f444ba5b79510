// `where status >= 500 and host = "web-1"`: a row filter. Its conjuncts over stored fields also
// prune segments by column statistics (plan/pushdown.ts).

import { compileExpr } from '../exec/compile-expr';
import type { BatchOp } from '../plan/operators';
import type { Schema } from '../plan/schema';
import { pruningPredicates } from '../plan/pushdown';
import type { Expr, Pos } from '../syntax/ast';
import { stagePos } from '../syntax/builders';
import { exprToString } from '../syntax/print';
import { checkExpr } from '../syntax/validate-expr';
import type { EvalContext } from '../value';
import type { StageModule } from './stage';

export interface WhereStage {
  kind: 'where';
  expr: Expr;
  pos: Pos;
}

export const where: StageModule<WhereStage, WhereStage> = {
  name: 'where',
  argumentLexing: 'main',
  streaming: true,
  build: (match) => ({ kind: 'where', expr: match.data[1] as Expr, pos: stagePos(match) }),
  validate(s, context) {
    s.expr = checkExpr(s.expr, context.scope('in where'));
    return s;
  },
  print: (s) => `where ${exprToString(s.expr)}`,
  pushDown(s, { scan, storedName }) {
    scan.predicates.push(...pruningPredicates(s.expr, storedName));
    scan.filters.push(exprToString(s.expr));
    return 'where pushed into scan';
  },
  atShard: (s, { schema, ctx }) => ({ kind: 'stream', op: whereFilter(s, schema, ctx) }),
  atCoordinator: (s, { schema, ctx }) => ({ kind: 'batch', op: whereFilter(s, schema, ctx) }),
};

function whereFilter(s: WhereStage, schema: Schema, ctx: EvalContext): BatchOp {
  return { kind: 'filter', predicate: compileExpr(s.expr, schema.compileEnv(ctx)) };
}
