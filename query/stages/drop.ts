// `drop _raw, debug.*`: every field but these.

import type { BatchOp } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { NamePattern, Pos } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { patternToString } from '../syntax/print';
import { checkFieldPatterns, fieldMatchers } from './field-patterns';
import type { StageModule } from './stage';

export interface DropStage {
  kind: 'drop';
  fields: NamePattern[];
  pos: Pos;
}

export const drop: StageModule<DropStage, DropStage> = {
  name: 'drop',
  argumentLexing: 'glob',
  streaming: true,
  build: (match) => ({ kind: 'drop', fields: listOf(match.data[1]), pos: stagePos(match) }),
  validate(s, context) {
    checkFieldPatterns(s.fields, 'drop', context);
    return s;
  },
  print: (s) => `drop ${s.fields.map(patternToString).join(', ')}`,
  atShard: (s, { schema }) => ({ kind: 'stream', op: dropOp(s, schema) }),
  atCoordinator: (s, { schema }) => ({ kind: 'batch', op: dropOp(s, schema) }),
};

function dropOp(s: DropStage, schema: Schema): BatchOp {
  const patterns = fieldMatchers(s.fields);
  if (schema.columns !== null) schema.columns = schema.columns.filter((name) => !patterns.some((pattern) => pattern.test(name)));
  return { kind: 'drop', patterns };
}
