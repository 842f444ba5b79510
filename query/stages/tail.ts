// `tail 20`: the last N rows; it needs every row, so the shards hand over all of theirs.

import type { Pos } from '../syntax/ast';
import { buildCountStage, checkCount, type ParsedCountStage } from './count';
import type { StageModule } from './stage';

/** `count` is a positive safe integer; 10 when the query leaves it out. */
export interface TailStage {
  kind: 'tail';
  count: number;
  pos: Pos;
}

export const tail: StageModule<ParsedCountStage<'tail'>, TailStage> = {
  name: 'tail',
  argumentLexing: 'main',
  streaming: false,
  build: (match) => buildCountStage('tail', match),
  validate: (s, context) => ({ kind: 'tail', count: checkCount(s.count, 'tail', context), pos: s.pos }),
  print: (s) => `tail ${s.count}`,
  atShard: () => ({ kind: 'handOver', boundary: { kind: 'rows' }, rewrites: [], consumed: 0 }),
  atCoordinator: (s) => ({ kind: 'tail', count: s.count }),
};
