// `parse json(_raw)`, `parse regex(msg, "(?<user>\w+)")`: fields extracted from a text field by a
// format of query/parse. Formats whose fields are not known in advance hide stored names.

import { createExtractor } from '../parse';
import type { BatchOp } from '../plan/operators';
import { resolveField, type Schema } from '../plan/schema';
import type { FieldName, ParseFormat, Pos, StringLiteral } from '../syntax/ast';
import { fieldName, stagePos } from '../syntax/builders';
import { show } from '../syntax/errors';
import type { Token } from '../syntax/lexer';
import { nameToString, quote } from '../syntax/print';
import { checkPattern, checkRegex, patternError } from '../syntax/regex';
import { nearest } from '../syntax/suggest';
import type { StageModule } from './stage';

export const PARSE_FORMATS: readonly ParseFormat[] = ['json', 'kv', 'logfmt', 'regex', 'pattern', 'combined', 'clf', 'syslog'];
/** Formats whose fields are named by the pattern (or fixed): a later filter still reads stored names. */
const KNOWN_FIELD_FORMATS: readonly ParseFormat[] = ['regex', 'pattern', 'combined', 'clf'];

/** `pattern` is set exactly for `regex` and `pattern` formats (validated). */
export interface ParseStage {
  kind: 'parse';
  format: ParseFormat;
  field: FieldName;
  pattern: StringLiteral | null;
  pos: Pos;
}
/** As written: the format is any name until validation. */
export interface ParsedParseStage {
  kind: 'parse';
  format: FieldName;
  field: FieldName;
  pattern: StringLiteral | null;
  pos: Pos;
}

export const parse: StageModule<ParsedParseStage, ParseStage> = {
  name: 'parse',
  argumentLexing: 'main',
  streaming: true,
  expectedAfterName: 'a parse format (json, kv, logfmt, regex, pattern, combined, clf, syslog)',
  /** `parse fmt(field)` and `parse fmt(field, "pattern")`. */
  build(match) {
    const d = match.data;
    let pattern: StringLiteral | null = null;
    if (d.length === 7) {
      const p = d[5] as Token;
      pattern = { kind: 'string', value: p.value, pos: p.pos };
    }
    return { kind: 'parse', format: fieldName([d[1]]), field: d[3] as FieldName, pattern, pos: stagePos(match) };
  },
  validate(s, context) {
    const format = s.format.name.toLowerCase() as ParseFormat;
    const known = PARSE_FORMATS.includes(format);
    if (!known) {
      const hint = nearest(format, PARSE_FORMATS);
      context.error(
        'E013',
        `unknown parse format ${show(s.format.name)}${hint ? `; did you mean ${hint}?` : `; formats are ${PARSE_FORMATS.join(', ')}`}`,
        s.format.pos,
        hint ?? `one of: ${PARSE_FORMATS.join(', ')}`,
      );
    }
    const needsPattern = format === 'regex' || format === 'pattern';
    if (known && needsPattern && s.pattern === null) {
      const example = format === 'regex' ? '"(?<name>...)"' : '"<name> ..."';
      context.error(
        'E005',
        `parse ${format}() needs a pattern: parse ${format}(${s.field.name}, ${example})`,
        s.format.pos,
        `${format}(${s.field.name}, ${example})`,
      );
    } else if (known && !needsPattern && s.pattern !== null) {
      context.error('E005', `parse ${format}() takes only a field`, s.pattern.pos, `${format}(${s.field.name})`);
    } else if (s.pattern !== null && format === 'regex') {
      const r = checkRegex(s.pattern.value);
      if (!r.ok) context.errors.push(patternError('regular expression', r, s.pattern.pos));
      else if (r.groups.length === 0)
        context.error(
          'E008',
          'the regular expression has no named group (?<name>...) to extract',
          s.pattern.pos,
          namedGroupSuggestion(s.pattern.value),
        );
    } else if (s.pattern !== null && format === 'pattern') {
      const r = checkPattern(s.pattern.value);
      if (!r.ok) context.errors.push(patternError('pattern', r, s.pattern.pos));
    }
    return { kind: 'parse', format, field: s.field, pattern: s.pattern, pos: s.pos };
  },
  print(s) {
    const pattern = s.pattern ? `, ${quote(s.pattern.value)}` : '';
    return `parse ${s.format}(${nameToString(s.field.name)}${pattern})`;
  },
  // After a parse whose fields are not known in advance (json, kv, logfmt, syslog), a name may not
  // be a stored column.
  hidesStoredNames: (s) => !KNOWN_FIELD_FORMATS.includes(s.format),
  atShard: (s, { schema }) => ({ kind: 'stream', op: parseOp(s, schema) }),
  atCoordinator: (s, { schema }) => ({ kind: 'batch', op: parseOp(s, schema) }),
};

function parseOp(s: ParseStage, schema: Schema): BatchOp {
  const extractor = createExtractor(s.format, s.pattern?.value ?? null);
  for (const name of extractor.fields ?? []) schema.define(name, 'any');
  // Formats whose pattern names the fields may overwrite them; the others only fill gaps.
  const overwrite = s.format === 'regex' || s.format === 'pattern';
  return { kind: 'parse', field: resolveField(s.field.name), extractor, overwrite };
}

/** The pattern with its whole match as a named group, as a string literal (or a hint when long). */
function namedGroupSuggestion(pattern: string): string {
  const wrapped = quote(`(?<value>${pattern})`);
  return wrapped.length <= 200 ? wrapped : 'name a group to extract: (?<name>...)';
}
