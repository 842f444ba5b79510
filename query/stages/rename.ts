// `rename src as source_ip, `user id` as user`: fields under new names. After it a name may not be
// a stored column, so later filters are not pushed into the scan.

import type { BatchOp } from '../plan/operators';
import { resolveField, type Schema } from '../plan/schema';
import type { Pos, Rename } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { nameToString } from '../syntax/print';
import type { StageModule } from './stage';

export interface RenameStage {
  kind: 'rename';
  renames: Rename[];
  pos: Pos;
}

export const rename: StageModule<RenameStage, RenameStage> = {
  name: 'rename',
  argumentLexing: 'main',
  streaming: true,
  build: (match) => ({ kind: 'rename', renames: listOf(match.data[1]), pos: stagePos(match) }),
  validate: (s) => s,
  print: (s) => `rename ${s.renames.map((r) => `${nameToString(r.from.name)} as ${nameToString(r.to.name)}`).join(', ')}`,
  hidesStoredNames: () => true,
  atShard: (s, { schema }) => ({ kind: 'stream', op: renameOp(s, schema) }),
  atCoordinator: (s, { schema }) => ({ kind: 'batch', op: renameOp(s, schema) }),
};

function renameOp(s: RenameStage, schema: Schema): BatchOp {
  const pairs = s.renames.map((r) => ({ from: resolveField(r.from.name), to: r.to.name }));
  for (const { from, to } of pairs) {
    schema.types.set(to, schema.typeOf(from));
    schema.types.delete(from);
    schema.defined.add(to);
    schema.defined.add(from);
    if (schema.columns !== null) schema.columns = schema.columns.map((name) => (name === from ? to : name));
  }
  return { kind: 'rename', pairs };
}
