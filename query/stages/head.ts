// `head 20`: the first N rows. Right after the streaming stages it is pushed into the scan: each
// shard returns its newest N rows.

import type { Pos } from '../syntax/ast';
import { buildCountStage, checkCount, type ParsedCountStage } from './count';
import type { StageModule } from './stage';

/** `count` is a positive safe integer; 10 when the query leaves it out. */
export interface HeadStage {
  kind: 'head';
  count: number;
  pos: Pos;
}

export const head: StageModule<ParsedCountStage<'head'>, HeadStage> = {
  name: 'head',
  argumentLexing: 'main',
  streaming: true,
  build: (match) => buildCountStage('head', match),
  validate: (s, context) => ({ kind: 'head', count: checkCount(s.count, 'head', context), pos: s.pos }),
  print: (s) => `head ${s.count}`,
  atShard: (s) => ({
    kind: 'handOver',
    boundary: { kind: 'head', count: s.count },
    rewrites: [`head ${s.count} pushed into scan (newest first)`],
    consumed: 1,
  }),
  atCoordinator: (s) => ({ kind: 'head', count: s.count }),
};
