// `top 5 status by host`: the most frequent values with their count and percent. Planned as
// `stats count() by host, status` and a ranking of the merged counts (query/exec/result.ts).

import { compileExpr } from '../exec/compile-expr';
import type { TopFinish } from '../plan/plan';
import type { StatsSpec } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { FieldName, Pos } from '../syntax/ast';
import { listOf, Seq, stagePos, type CountSpec } from '../syntax/builders';
import { fieldListToString } from '../syntax/print';
import type { EvalContext } from '../value';
import { checkCount } from './count';
import type { StageModule } from './stage';
import { compileAggregate, STATS_SPLIT_REWRITE } from './stats';

/** Columns: fields..., `count`, `percent`; `by` groups the ranking. */
export interface TopStage {
  kind: 'top';
  count: number;
  fields: FieldName[];
  by: FieldName[];
  pos: Pos;
}
export interface ParsedTopStage {
  kind: 'top';
  count: CountSpec | null;
  fields: FieldName[];
  by: FieldName[];
  pos: Pos;
}

export const top: StageModule<ParsedTopStage, TopStage> = {
  name: 'top',
  argumentLexing: 'main',
  streaming: false,
  aggregates: true,
  /** `top [N] fields [by fields]`. */
  build(match) {
    const d = match.data;
    const hasCount = !(d[1] instanceof Seq);
    const at = hasCount ? 2 : 1;
    const by = d.length > at + 1 ? listOf<FieldName>(d[at + 2]) : [];
    return { kind: 'top', count: hasCount ? (d[1] as CountSpec) : null, fields: listOf(d[at]), by, pos: stagePos(match) };
  },
  validate(s, context) {
    // After top, `count()` names its `count` column.
    context.columns = new Map([['count()', 'count']]);
    return { kind: 'top', count: checkCount(s.count, 'top', context), fields: s.fields, by: s.by, pos: s.pos };
  },
  print: (s) => `top ${s.count} ${fieldListToString(s.fields)}${s.by.length > 0 ? ` by ${fieldListToString(s.by)}` : ''}`,
  atShard(s, { schema, ctx }) {
    const { spec, finish } = desugarTop(s, schema, ctx);
    schema.becomeStatsColumns(spec, finish);
    return {
      kind: 'handOver',
      boundary: { kind: 'stats', spec, top: finish },
      rewrites: ['top -> stats+sort+head', STATS_SPLIT_REWRITE],
      consumed: 1,
    };
  },
  atCoordinator(s, { schema, ctx }) {
    const { spec, finish } = desugarTop(s, schema, ctx);
    schema.becomeStatsColumns(spec, finish);
    return { kind: 'stats', spec, top: finish };
  },
};

/** `top N f by g` as stats: count() by g, f (the ranking runs on the merged counts). */
function desugarTop(stage: TopStage, schema: Schema, ctx: EvalContext): { spec: StatsSpec; finish: TopFinish } {
  const compileEnv = schema.compileEnv(ctx);
  const fields = [...stage.by, ...stage.fields];
  const keys = fields.map((field) => ({
    name: field.name,
    expr: compileExpr({ kind: 'field', name: field.name, pos: field.pos }, compileEnv),
  }));
  const count = compileAggregate({ kind: 'aggregate', name: 'count', args: [], column: null, pos: stage.pos }, 'count', compileEnv, ctx);
  return { spec: { keys, aggregates: [count] }, finish: { count: stage.count, byCount: stage.by.length, fieldCount: stage.fields.length } };
}
