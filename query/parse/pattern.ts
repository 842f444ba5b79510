// `parse pattern(f, "<ip> - <user> [<ts>] \"<method> <path> <_>\"")` (LogQL's pattern parser):
// literal text must match exactly, starting at the beginning of the text; `<name>` captures up to the
// first occurrence of the literal text that follows it; `<_>` does the same without a field; a capture
// at the end of the pattern takes the rest of the text, and text after the pattern's last literal is
// ignored. All or nothing: when a literal is not found the text gives no fields. Captures follow the
// numeric-capture rule (an empty capture is the empty string).
// A hand-written matcher (indexOf per literal: linear time, no regex engine). Malformed patterns are
// E008: an unclosed `<name`, no capture, two captures without literal text between them, a name twice
// (a `<` that does not start `<name>` is literal text, as in query/syntax/regex.ts).

import { FunctionArgumentError } from '../functions/types';
import { checkPattern } from '../syntax/regex';
import type { Value } from '../value';
import { captureValue, setField } from './common';
import type { Extractor } from './types';

const CAPTURE = /<([A-Za-z_@][A-Za-z0-9_.@:-]*)>/g;

export interface CompiledPattern {
  /** Literal text before each capture, and after the last one (captures.length + 1 entries). */
  literals: string[];
  /** The field of each capture; null for `<_>`. */
  captures: (string | null)[];
}

export function compilePattern(pattern: string): CompiledPattern {
  const check = checkPattern(pattern);
  if (!check.ok) throw new FunctionArgumentError(`invalid pattern: ${check.message}`, 'E008', 1);
  const literals: string[] = [];
  const captures: (string | null)[] = [];
  let last = 0;
  for (const m of pattern.matchAll(CAPTURE)) {
    literals.push(pattern.slice(last, m.index));
    captures.push(m[1] === '_' ? null : m[1]!);
    last = m.index + m[0].length;
  }
  literals.push(pattern.slice(last));
  return { literals, captures };
}

export function patternExtractor(pattern: string): Extractor {
  const { literals, captures } = compilePattern(pattern);
  const fields = captures.filter((c): c is string => c !== null);
  return {
    fields,
    extract(text: string): Record<string, Value> {
      const first = literals[0]!;
      if (!text.startsWith(first)) return {};
      // All or nothing: a missing literal drops the fields found so far.
      let pos = first.length;
      const out: Record<string, Value> = {};
      for (let k = 0; k < captures.length; k++) {
        const next = literals[k + 1]!;
        let end: number;
        let after: number;
        if (next === '') {
          end = text.length;
          after = end;
        } else {
          end = text.indexOf(next, pos);
          if (end < 0) return {};
          after = end + next.length;
        }
        const name = captures[k]!;
        if (name !== null) setField(out, name, captureValue(text.slice(pos, end)));
        pos = after;
      }
      return out;
    },
  };
}
