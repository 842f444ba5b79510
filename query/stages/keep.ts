// `keep _time, host, http.*`: only these fields, in this order (globs expand alphabetically).

import type { BatchOp } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { NamePattern, Pos } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { patternToString } from '../syntax/print';
import { checkFieldPatterns, fieldMatchers } from './field-patterns';
import type { StageModule } from './stage';

export interface KeepStage {
  kind: 'keep';
  fields: NamePattern[];
  pos: Pos;
}

export const keep: StageModule<KeepStage, KeepStage> = {
  name: 'keep',
  argumentLexing: 'glob',
  streaming: true,
  build: (match) => ({ kind: 'keep', fields: listOf(match.data[1]), pos: stagePos(match) }),
  validate(s, context) {
    checkFieldPatterns(s.fields, 'keep', context);
    return s;
  },
  print: (s) => `keep ${s.fields.map(patternToString).join(', ')}`,
  atShard: (s, { schema }) => ({ kind: 'stream', op: keepOp(s, schema) }),
  atCoordinator: (s, { schema }) => ({ kind: 'batch', op: keepOp(s, schema) }),
};

function keepOp(s: KeepStage, schema: Schema): BatchOp {
  const patterns = fieldMatchers(s.fields);
  if (schema.columns !== null) schema.columns = schema.columns.filter((name) => patterns.some((pattern) => pattern.test(name)));
  for (const pattern of patterns) if (!pattern.glob) schema.defined.add(pattern.text);
  return { kind: 'keep', patterns };
}
