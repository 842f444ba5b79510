// `dedup host, status`: the first row of each combination of values; it needs every row, so the
// shards hand over all of theirs.

import { resolveField } from '../plan/schema';
import type { FieldName, Pos } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { fieldListToString } from '../syntax/print';
import type { StageModule } from './stage';

export interface DedupStage {
  kind: 'dedup';
  fields: FieldName[];
  pos: Pos;
}

export const dedup: StageModule<DedupStage, DedupStage> = {
  name: 'dedup',
  argumentLexing: 'main',
  streaming: false,
  build: (match) => ({ kind: 'dedup', fields: listOf(match.data[1]), pos: stagePos(match) }),
  validate: (s) => s,
  print: (s) => `dedup ${fieldListToString(s.fields)}`,
  atShard: () => ({ kind: 'handOver', boundary: { kind: 'rows' }, rewrites: [], consumed: 0 }),
  atCoordinator: (s) => ({ kind: 'dedup', fields: s.fields.map((field) => resolveField(field.name)) }),
};
