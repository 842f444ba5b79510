// The canonical text of stages and queries: each stage prints itself (its module's `print`).

import { stageModule, type Query, type Stage } from './registry';

export function stageToString(s: Stage): string {
  return stageModule(s.kind).print(s);
}

export function queryToString(q: Query): string {
  return q.stages.map(stageToString).join(' | ');
}
