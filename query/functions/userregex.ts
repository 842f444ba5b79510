// User regular expressions: compiled with RE2 (linear time; a user pattern never runs on the
// backtracking JS engine), with a literal prefilter. A call to node-re2 converts the string to UTF-8
// and crosses N-API, so when every match must contain some literal text, a text without it
// (String.indexOf, far cheaper) is answered without calling RE2. Most log searches are selective,
// so most rows never reach RE2.

import RE2 from 're2';
import { FunctionArgumentError } from './types';

/** Compiles a user pattern with RE2, or throws E008 naming the argument. */
export function compileRegex(source: string, flags: string, argument: number): RE2 {
  try {
    return new RE2(source, flags);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new FunctionArgumentError(`invalid regular expression: ${message}`, 'E008', argument);
  }
}

/** Capture groups of a pattern: how many, and the names of the named ones (re2 syntax). */
export function regexGroups(source: string): { count: number; names: string[] } {
  let count = 0;
  const names: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++; // a leading ] is literal
    } else if (c === '(') {
      if (source[i + 1] !== '?') {
        count++;
      } else {
        const m = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(source.slice(i, i + 140));
        if (m) {
          count++;
          names.push(m[1]!);
        }
      }
    }
  }
  return { count, names };
}

function isAlnum(c: string): boolean {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/** The offset after the character class opening at i. */
function skipClass(p: string, i: number): number {
  i++;
  if (p[i] === '^') i++;
  if (p[i] === ']') i++;
  for (; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
  return i + 1;
}

/** The offset after the group opening at i (nesting, escapes and classes skipped). */
function skipGroup(p: string, i: number): number {
  let depth = 0;
  for (; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') i++;
    else if (c === '[') i = skipClass(p, i) - 1;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return p.length;
}

/**
 * The longest ASCII literal that every match of the pattern contains, or null. Conservative: no
 * literal for patterns with `|`, inline flags such as `(?i)`, or `\Q`; literal runs are cut by
 * groups, classes, `.`, anchors and escapes other than escaped punctuation, and a quantified
 * character leaves its run.
 */
export function requiredLiteral(p: string): string | null {
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      if (p[i + 1] === 'Q') return null;
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      i = skipClass(p, i) - 1;
    } else if (c === '|') {
      return null;
    } else if (c === '(' && p[i + 1] === '?' && /^[a-zA-Z-]$/.test(p[i + 2] ?? '') && p[i + 2] !== 'P') {
      return null;
    }
  }
  let best = '';
  let run = '';
  const cut = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < p.length;) {
    const c = p[i]!;
    if (c === '?' || c === '*' || c === '+' || c === '{') {
      run = run.slice(0, -1); // the quantified character is not required as it stands
      cut();
      i = c === '{' ? p.indexOf('}', i) + 1 || p.length : i + 1;
    } else if (c === '\\') {
      const e = p[i + 1] ?? '';
      if (e !== '' && !isAlnum(e) && e.charCodeAt(0) < 128) {
        run += e;
        i += 2;
      } else {
        // A class or special escape: skip its operand too (\pL \p{Greek} \x41 \x{263a} \012).
        cut();
        i += 2;
        if ((e === 'p' || e === 'P' || e === 'x') && p[i] === '{') i = p.indexOf('}', i) + 1 || p.length;
        else if (e === 'p' || e === 'P') i += 1;
        else if (e === 'x') i += 2;
        else if (e >= '0' && e <= '9') while (p[i]! >= '0' && p[i]! <= '9') i++;
      }
    } else if (c === '[') {
      cut();
      i = skipClass(p, i);
    } else if (c === '(') {
      cut();
      i = skipGroup(p, i);
    } else if (c === '.' || c === '^' || c === '$' || c === ')' || c.charCodeAt(0) >= 128) {
      cut();
      i++;
    } else {
      run += c;
      i++;
    }
  }
  cut();
  return best === '' ? null : best;
}

/** A compiled user regex: RE2 behind the literal prefilter. */
export class UserRegex {
  readonly re: RE2;
  /** The same pattern with the `g` flag, for replace(); made on first use. */
  private global: RE2 | null = null;
  /** Text every match contains (requiredLiteral), or null. */
  readonly required: string | null;

  constructor(
    readonly source: string,
    argument: number,
  ) {
    this.re = compileRegex(source, '', argument);
    this.required = requiredLiteral(source);
  }

  test(s: string): boolean {
    return (this.required === null || s.indexOf(this.required) >= 0) && this.re.test(s);
  }

  exec(s: string): RegExpExecArray | null {
    return this.required === null || s.indexOf(this.required) >= 0 ? this.re.exec(s) : null;
  }

  /** Every match replaced (JS replacement syntax). */
  replace(s: string, replacement: string): string {
    if (this.required !== null && s.indexOf(this.required) < 0) return s;
    if (this.global === null) this.global = new RE2(this.source, 'g');
    return this.global.replace(s, replacement);
  }
}
