// The count of `head`, `tail` and `top`: a whole number of at least 1, 10 when left out.

import type { Pos } from '../syntax/ast';
import { stagePos, type CountSpec, type StageMatch } from '../syntax/builders';
import { show } from '../syntax/errors';
import type { ValidationContext } from './stage';

export const DEFAULT_COUNT = 10;

/** `head [N]` and `tail [N]` as written (`head -3` parses so that validation can say E012). */
export interface ParsedCountStage<Kind extends 'head' | 'tail'> {
  kind: Kind;
  count: CountSpec | null;
  pos: Pos;
}

export function buildCountStage<Kind extends 'head' | 'tail'>(kind: Kind, match: StageMatch): ParsedCountStage<Kind> {
  return { kind, count: match.data.length === 2 ? (match.data[1] as CountSpec) : null, pos: stagePos(match) };
}

export function checkCount(c: CountSpec | null, stage: string, context: ValidationContext): number {
  if (c === null) return DEFAULT_COUNT;
  if (!Number.isSafeInteger(c.value) || c.value <= 0) {
    context.error('E012', `the count of ${stage} must be a whole number of at least 1, got ${show(c.text)}`, c.pos, String(DEFAULT_COUNT));
    return DEFAULT_COUNT;
  }
  return c.value;
}
