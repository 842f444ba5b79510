// Maps offsets in the text the lexer sees (after `$variable` substitution) back to line/column/offset
// in the text the user wrote, so that every error and AST position points at the user's text.

import type { Pos } from './ast';

export interface Replacement {
  /** Start offset in the substituted text. */
  readonly at: number;
  /** Length of the inserted literal in the substituted text. */
  readonly length: number;
  /** Start offset and length of `$name` in the original text. */
  readonly origAt: number;
  readonly origLength: number;
}

export class SourceMap {
  private readonly lineStarts: number[] = [0];

  constructor(
    readonly original: string,
    private readonly replacements: readonly Replacement[] = [],
  ) {
    for (let i = 0; i < original.length; i++) {
      if (original.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    }
  }

  /** Offset in the original text; inside an inserted literal it is the `$` of the variable. */
  toOriginalOffset(offset: number): number {
    const reps = this.replacements;
    if (reps.length === 0) return offset;
    let lo = 0;
    let hi = reps.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (reps[mid]!.at <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0) return offset;
    const r = reps[found]!;
    if (offset < r.at + r.length) return r.origAt;
    return offset - (r.at + r.length) + r.origAt + r.origLength;
  }

  /** Position of an offset of the original text. */
  posOfOriginal(offset: number): Pos {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1, offset };
  }

  /** Position (in the original text) of an offset of the substituted text. */
  pos(offset: number): Pos {
    return this.posOfOriginal(this.toOriginalOffset(offset));
  }
}
