// `from index, web-*`: the indexes a query reads. Always the first stage and only there; the
// planner takes its patterns for the scan.

import type { NamePattern, Pos } from '../syntax/ast';
import { listOf, stagePos } from '../syntax/builders';
import { patternToString } from '../syntax/print';
import type { StageModule } from './stage';

export interface FromStage {
  kind: 'from';
  indexes: NamePattern[];
  pos: Pos;
}

export const from: StageModule<FromStage, FromStage> = {
  name: 'from',
  argumentLexing: 'glob',
  streaming: true,
  build: (match) => ({ kind: 'from', indexes: listOf(match.data[1]), pos: stagePos(match) }),
  validate(s, context) {
    if (context.position > 0) {
      const all = [...context.indexes, ...s.indexes].map((p) => p.pattern).join(', ');
      context.error('E011', '"from" can only be the first stage; list several indexes in the first one', s.pos, `from ${all}`);
    } else {
      context.indexes = s.indexes;
    }
    return s;
  },
  print: (s) => `from ${s.indexes.map(patternToString).join(', ')}`,
};
