// Validation of user regular expressions and `parse pattern` patterns (E008).
//
// Patterns will run on a linear-time engine (re2), so constructs such an engine cannot run are refused
// here with a clear message: lookahead, lookbehind, backreferences, atomic groups. The rest is checked
// by compiling with JS RegExp after translating re2-only syntax (`(?P<name>`, inline flags).

export type RegexCheck = { ok: true; groups: string[] } | { ok: false; message: string };

/** re2 refuses repetition counts above 1000. */
const MAX_REPEAT = 1000;

export function checkRegex(source: string): RegexCheck {
  let js = '';
  const groups: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const e = source[i + 1];
      if (e === undefined) return fail('it ends with a lone backslash');
      if (!inClass && /[1-9]/.test(e)) return fail(`backreferences such as \\${e} are not supported (patterns must run in linear time)`);
      if (!inClass && e === 'k' && source[i + 2] === '<') return fail('backreferences such as \\k<name> are not supported (patterns must run in linear time)');
      js += c + e;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      js += c;
      continue;
    }
    if (c === '[') {
      // `[]a]` and `[^]a]`: a leading `]` is a literal in re2.
      inClass = true;
      js += c;
      if (source[i + 1] === '^') js += source[++i];
      if (source[i + 1] === ']') {
        js += '\\]';
        i++;
      }
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i));
      if (m && (Number(m[1]) > MAX_REPEAT || (m[2] !== undefined && m[2] !== '' && Number(m[2]) > MAX_REPEAT))) {
        return fail(`repetition count ${m[0]} is too large (at most ${MAX_REPEAT})`);
      }
    }
    if (c === '(' && source[i + 1] === '?') {
      const rest = source.slice(i + 2);
      if (rest.startsWith('=') || rest.startsWith('!')) return fail('lookahead (?= and (?! is not supported (patterns must run in linear time)');
      if (rest.startsWith('<=') || rest.startsWith('<!')) return fail('lookbehind (?<= and (?<! is not supported (patterns must run in linear time)');
      if (rest.startsWith('P=') || rest.startsWith('P>')) return fail('backreferences such as (?P=name) are not supported (patterns must run in linear time)');
      if (rest.startsWith('>')) return fail('atomic groups (?> are not supported');
      const named = /^P?<([^>]*)>/.exec(rest);
      if (named) {
        groups.push(named[1]!);
        js += `(?<${named[1]}>`;
        i += 1 + named[0].length;
        continue;
      }
      // re2 inline flags: `(?i)` and `(?i:...)`; they do not change validity, so drop them for JS.
      const flags = /^[imsU-]+([):])/.exec(rest);
      if (flags) {
        js += flags[1] === ':' ? '(?:' : '';
        i += 1 + flags[0].length;
        continue;
      }
    }
    js += c;
  }
  try {
    new RegExp(js);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return fail(msg.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '').toLowerCase());
  }
  return { ok: true, groups };
}

function fail(message: string): RegexCheck {
  return { ok: false, message };
}

export type PatternCheck = { ok: true; fields: string[] } | { ok: false; message: string };

const CAPTURE = /<([A-Za-z_@][A-Za-z0-9_.@:-]*)>/g;

/**
 * `parse pattern(f, "<ip> - <user> [<ts>] ...")`: `<name>` captures up to the next literal text,
 * `<_>` skips. A `<` that does not open such a capture is literal text.
 */
export function checkPattern(pattern: string): PatternCheck {
  const fields: string[] = [];
  let lastEnd = -1;
  let lastName = '';
  for (const m of pattern.matchAll(CAPTURE)) {
    const name = m[1]!;
    if (m.index === lastEnd) {
      return { ok: false, message: `captures <${lastName}> and <${name}> need literal text between them` };
    }
    if (name !== '_') {
      if (fields.includes(name)) return { ok: false, message: `capture <${name}> appears twice` };
      fields.push(name);
    }
    lastEnd = m.index + m[0].length;
    lastName = name;
  }
  if (fields.length === 0) return { ok: false, message: 'the pattern has no <name> capture' };
  return { ok: true, fields };
}
