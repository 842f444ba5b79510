// `extend ms = duration * 1000, slow = ms > 500`: computed fields; later assignments see earlier ones.

import { compileExpr } from '../exec/compile-expr';
import type { BatchOp } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { Assignment, Pos } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { exprToString, nameToString } from '../syntax/print';
import { checkExpr } from '../syntax/validate-expr';
import type { EvalContext } from '../value';
import type { StageModule } from './stage';

export interface ExtendStage {
  kind: 'extend';
  assignments: Assignment[];
  pos: Pos;
}

export const extend: StageModule<ExtendStage, ExtendStage> = {
  name: 'extend',
  argumentLexing: 'main',
  streaming: true,
  build: (match) => ({ kind: 'extend', assignments: listOf(match.data[1]), pos: stagePos(match) }),
  validate(s, context) {
    for (const a of s.assignments) a.expr = checkExpr(a.expr, context.scope('in extend'));
    return s;
  },
  print: (s) => `extend ${s.assignments.map((a) => `${nameToString(a.name)} = ${exprToString(a.expr)}`).join(', ')}`,
  atShard: (s, { schema, ctx }) => ({ kind: 'stream', op: extendOp(s, schema, ctx) }),
  atCoordinator: (s, { schema, ctx }) => ({ kind: 'batch', op: extendOp(s, schema, ctx) }),
};

/** Each assignment is compiled with the fields the ones before it defined. */
function extendOp(s: ExtendStage, schema: Schema, ctx: EvalContext): BatchOp {
  const assignments = s.assignments.map((assignment) => {
    const expr = compileExpr(assignment.expr, schema.compileEnv(ctx));
    schema.define(assignment.name, expr.type);
    return { name: assignment.name, expr };
  });
  return { kind: 'extend', assignments };
}
