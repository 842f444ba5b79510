// Stage-level checks after parsing (E002, E003, E005, E006, E008, E010-E013) and the final AST.

import { isValidIndexName } from '../../storage/core/event';
import type * as A from './ast';
import { invalidSearchFields, type ParsedStage, type ParsedStatsStage, type UnknownStage, type CountSpec } from './builders';
import { QueryError, show } from './errors';
import { isAggregateFunction, isScalarFunction } from './functions';
import { LEGACY_STAGES, STAGE_HINTS, legacySuggestion } from './legacy';
import { STAGE_NAMES } from './lexer';
import { assignColumnNames, defaultAggregateName, defaultKeyName } from './names';
import { exprToString, quote } from './print';
import { checkPattern, checkRegex, patternError } from './regex';
import { hintFor, nearest } from './suggest';
import { tokenGlobRegex, valueGlobRegex, wildcardRefusal, type WildcardRegex } from './wildcards';
import { MAX_EXPR_DEPTH, checkAggregateCall, checkExpr, type ExprScope } from './validate-expr';

export const PARSE_FORMATS: readonly A.ParseFormat[] = ['json', 'kv', 'logfmt', 'regex', 'pattern', 'combined', 'clf', 'syslog'];
const DEFAULT_COUNT = 10;

export interface Validated {
  query: A.Query;
  /** Sorted by position; the query is only usable when this is empty. */
  errors: QueryError[];
}

export function validate(parsed: ParsedStage[], source: string): Validated {
  const v = new Validator(source);
  const stages: A.Stage[] = [];
  parsed.forEach((s, i) => {
    const stage = v.stage(s, i);
    if (stage) stages.push(stage);
  });
  const errors = v.errors.sort((a, b) => a.offset - b.offset);
  return { query: { stages }, errors };
}

class Validator {
  readonly errors: QueryError[] = [];
  /** Output columns of the last stats/top, by canonical aggregate text. */
  private columns: Map<string, string> | null = null;
  /** Indexes of the first stage, for the E011 suggestion. */
  private indexes: A.NamePattern[] = [];

  constructor(private readonly source: string) {}

  private error(code: QueryError['code'], message: string, pos: A.Pos, suggestion: string): void {
    this.errors.push(new QueryError(code, message, pos, suggestion));
  }

  private scope(place: string): ExprScope {
    return { errors: this.errors, columns: this.columns, inAggregate: false, place };
  }

  stage(s: ParsedStage, index: number): A.Stage | null {
    if (index === 0 && s.kind !== 'from') {
      this.notFrom(s);
      return null;
    }
    switch (s.kind) {
      case 'unknown':
        this.unknown(s);
        return null;
      case 'from':
        if (index > 0) {
          const all = [...this.indexes, ...s.indexes].map((p) => p.pattern).join(', ');
          this.error('E011', '"from" can only be the first stage; list several indexes in the first one', s.pos, `from ${all}`);
        } else {
          this.indexes = s.indexes;
        }
        return s;
      case 'search':
        s.expr = this.search(s.expr, 0);
        return s;
      case 'where':
        s.expr = checkExpr(s.expr, this.scope('in where'));
        return s;
      case 'extend':
        for (const a of s.assignments) a.expr = checkExpr(a.expr, this.scope('in extend'));
        return s;
      case 'sort':
        for (const k of s.keys) k.expr = checkExpr(k.expr, this.scope('in sort'));
        return s;
      case 'keep': case 'drop':
        for (const f of s.fields) this.fieldPattern(f, s.kind);
        return s;
      case 'rename': case 'dedup':
        return s;
      case 'head': case 'tail':
        return { kind: s.kind, count: this.count(s.count, s.kind), pos: s.pos };
      case 'parse':
        return this.parse(s);
      case 'stats':
        return this.stats(s);
      case 'top': {
        this.columns = new Map([['count()', 'count']]);
        return { kind: 'top', count: this.count(s.count, 'top'), fields: s.fields, by: s.by, pos: s.pos };
      }
    }
  }

  private notFrom(s: ParsedStage): void {
    if (s.kind === 'unknown' && LEGACY_STAGES.has(s.name.toLowerCase())) {
      this.unknown(s);
      return;
    }
    const name = s.kind === 'unknown' ? s.name : s.kind;
    const typo = s.kind === 'unknown' && nearest(s.name, ['from']) !== null;
    // A bare word where the query starts is most likely the index: `web | head` means `from web | head`.
    const index = s.kind === 'unknown' && !typo && isValidIndexName(s.name);
    const rest = this.source.trim();
    const suggestion = typo ? 'from' : rest.length > 200 ? 'from <index> | ' : index ? `from ${rest}` : `from <index> | ${rest}`;
    const hint = typo ? '; did you mean from?' : index ? `; did you mean from ${s.name}?` : '';
    this.error('E006', `a query must start with "from <index>", found ${show(name)}${hint}`, s.pos, suggestion);
  }

  private unknown(s: UnknownStage): void {
    const lower = s.name.toLowerCase();
    if (LEGACY_STAGES.has(lower)) {
      const suggestion = legacySuggestion(s, this.source);
      const shown = suggestion.length > 100 ? `${suggestion.slice(0, 97)}...` : suggestion;
      this.error('E003', `"${lower}" is a legacy stage; use: ${shown}`, s.pos, suggestion);
      return;
    }
    const hint = hintFor(STAGE_HINTS, lower) ?? nearest(lower, STAGE_NAMES);
    const message = hint
      ? `unknown stage ${show(s.name)}; did you mean ${hint}?`
      : `unknown stage ${show(s.name)}; the stages are ${STAGE_NAMES.join(', ')}`;
    this.error('E002', message, s.pos, hint ?? `one of: ${STAGE_NAMES.join(', ')}`);
  }

  private count(c: CountSpec | null, stage: string): number {
    if (c === null) return DEFAULT_COUNT;
    if (!Number.isSafeInteger(c.value) || c.value <= 0) {
      this.error('E012', `the count of ${stage} must be a whole number of at least 1, got ${show(c.text)}`, c.pos, String(DEFAULT_COUNT));
      return DEFAULT_COUNT;
    }
    return c.value;
  }

  private fieldPattern(p: A.NamePattern, stage: string): void {
    if (!p.quoted && !/^[A-Za-z_@*?][A-Za-z0-9_.@:*?-]*$/.test(p.pattern)) {
      this.error('E001', `expected a field name or glob after "${stage}", found ${show(p.pattern)}`, p.pos, inBackticks(p.pattern));
    }
  }

  private search(e: A.SearchExpr, depth: number): A.SearchExpr {
    if (depth > MAX_EXPR_DEPTH) {
      this.error('E001', `search expression nested more than ${MAX_EXPR_DEPTH} levels deep`, e.pos, `nest at most ${MAX_EXPR_DEPTH} levels`);
      return { kind: 'term', text: '', glob: false, pos: e.pos };
    }
    switch (e.kind) {
      case 'and': case 'or': {
        // Flatten the chain without recursing along it (implied AND chains can be very long).
        const out: A.SearchExpr[] = [];
        const stack: A.SearchExpr[] = [e];
        while (stack.length > 0) {
          const x = stack.pop()!;
          if (x.kind === e.kind) for (let i = x.operands.length - 1; i >= 0; i--) stack.push(x.operands[i]!);
          else out.push(this.search(x, depth + 1));
        }
        e.operands = out;
        return e;
      }
      case 'not':
        e.operand = this.search(e.operand, depth + 1);
        return e;
      case 'fieldmatch':
        if (invalidSearchFields.has(e)) {
          const cmp = /^(.*?)([<>])$/.exec(e.field);
          const suggestion = cmp ? `where ${cmp[1]} ${cmp[2]}${e.op === '=' ? '=' : ''} ${e.value}` : `${inBackticks(e.field)}${e.op}${e.quoted ? quote(e.value) : e.value}`;
          this.error('E001', `${show(e.field)} is not a field name${cmp ? '; compare numbers with where' : ''}`, e.pos, suggestion);
        } else if (e.glob && !e.quoted) {
          this.glob(valueGlobRegex(e.value), e.pos);
        }
        return e;
      case 'term':
        if (e.glob) this.glob(tokenGlobRegex(e.text), e.pos);
        return e;
      default:
        return e;
    }
  }

  private glob(regex: WildcardRegex, pos: A.Pos): void {
    const refusal = wildcardRefusal(regex);
    if (refusal !== null) this.errors.push(patternError('glob', refusal, pos));
  }

  private parse(s: Extract<ParsedStage, { kind: 'parse' }>): A.ParseStage {
    const format = s.format.name.toLowerCase() as A.ParseFormat;
    const known = PARSE_FORMATS.includes(format);
    if (!known) {
      const hint = nearest(format, PARSE_FORMATS);
      this.error('E013', `unknown parse format ${show(s.format.name)}${hint ? `; did you mean ${hint}?` : `; formats are ${PARSE_FORMATS.join(', ')}`}`, s.format.pos, hint ?? `one of: ${PARSE_FORMATS.join(', ')}`);
    }
    const needsPattern = format === 'regex' || format === 'pattern';
    if (known && needsPattern && s.pattern === null) {
      const example = format === 'regex' ? '"(?<name>...)"' : '"<name> ..."';
      this.error('E005', `parse ${format}() needs a pattern: parse ${format}(${s.field.name}, ${example})`, s.format.pos, `${format}(${s.field.name}, ${example})`);
    } else if (known && !needsPattern && s.pattern !== null) {
      this.error('E005', `parse ${format}() takes only a field`, s.pattern.pos, `${format}(${s.field.name})`);
    } else if (s.pattern !== null && format === 'regex') {
      const r = checkRegex(s.pattern.value);
      if (!r.ok) this.errors.push(patternError('regular expression', r, s.pattern.pos));
      else if (r.groups.length === 0) this.error('E008', 'the regular expression has no named group (?<name>...) to extract', s.pattern.pos, namedGroupSuggestion(s.pattern.value));
    } else if (s.pattern !== null && format === 'pattern') {
      const r = checkPattern(s.pattern.value);
      if (!r.ok) this.errors.push(patternError('pattern', r, s.pattern.pos));
    }
    return { kind: 'parse', format, field: s.field, pattern: s.pattern, pos: s.pos };
  }

  private stats(s: ParsedStatsStage): A.StatsStage {
    const aggregates: Array<{ call: A.AggregateCall; alias: A.FieldName | null; pos: A.Pos }> = [];
    for (const item of s.aggregates) {
      const call = this.statsAggregate(item.expr);
      if (call) aggregates.push({ call, alias: item.alias, pos: item.expr.pos });
    }
    const keyScope: ExprScope = { errors: this.errors, columns: null, inAggregate: false, place: 'in a stats by key' };
    const keys = s.by.map((k) => ({ expr: checkExpr(k.expr, keyScope), alias: k.alias, pos: k.expr.pos }));
    const items = [
      ...keys.map((k) => ({ alias: k.alias?.name ?? null, defaultName: defaultKeyName(k.expr), pos: k.alias?.pos ?? k.pos })),
      ...aggregates.map((a) => ({ alias: a.alias?.name ?? null, defaultName: defaultAggregateName(a.call), pos: a.alias?.pos ?? a.pos })),
    ];
    const { names, duplicateAliases } = assignColumnNames(items);
    for (const i of duplicateAliases) this.error('E001', `duplicate column name ${show(items[i]!.alias!)} in stats`, items[i]!.pos, `${items[i]!.alias!}_2`);
    const by: A.StatsKey[] = keys.map((k, i) => ({ expr: k.expr, alias: k.alias?.name ?? null, name: names[i]!, pos: k.pos }));
    const aggs: A.StatsAggregate[] = aggregates.map((a, i) => ({ call: a.call, alias: a.alias?.name ?? null, name: names[keys.length + i]!, pos: a.pos }));
    this.columns = new Map();
    for (const a of aggs) {
      const text = exprToString(a.call);
      if (!this.columns.has(text)) this.columns.set(text, a.name);
    }
    return { kind: 'stats', aggregates: aggs, by, pos: s.pos };
  }

  /** A stats column must be one aggregate call; anything else is E010 (or E004 for unknown names). */
  private statsAggregate(e: A.Expr): A.AggregateCall | null {
    const scope: ExprScope = { errors: this.errors, columns: null, inAggregate: false, place: 'in stats' };
    if (e.kind === 'call' && isAggregateFunction(e.name)) return checkAggregateCall(e, scope, 0);
    if (e.kind === 'call' && !isScalarFunction(e.name)) {
      checkExpr(e, scope); // E004 with the nearest name
    } else if (e.kind === 'field' && isAggregateFunction(e.name)) {
      this.error('E010', `stats needs aggregate calls: write ${e.name}() instead of ${e.name}`, e.pos, `${e.name}()`);
    } else if (e.kind === 'binary' && e.op === '=' && e.left.kind === 'field' && e.right.kind === 'call' && isAggregateFunction(e.right.name)) {
      const before = this.errors.length;
      const call = checkAggregateCall(e.right, scope, 1);
      const text = this.errors.length === before ? exprToString(call) : `${e.right.name}(...)`;
      this.error('E010', `name a stats column with "as", e.g. count() as ${e.left.name}`, e.pos, short(`${text} as ${e.left.name}`, 'count() as n'));
    } else if (e.kind === 'call') {
      // A scalar of each event is what groups: offer it as a key.
      this.error('E010', `${e.name}() is not an aggregate; stats needs aggregates such as count() or avg(x)`, e.pos, short(`count() by ${exprToString(e)}`, 'count() by x'));
    } else {
      const suggestion = e.kind === 'field' ? `count() by ${exprToString(e)}` : 'an aggregate such as count() or avg(x); compute expressions with extend after stats';
      this.error('E010', 'a stats column must be a single aggregate call such as count() or avg(x); compute expressions with extend after stats', e.pos, suggestion);
    }
    return null;
  }
}

/** The pattern with its whole match as a named group, as a string literal (or a hint when long). */
function namedGroupSuggestion(pattern: string): string {
  const wrapped = quote(`(?<value>${pattern})`);
  return wrapped.length <= 200 ? wrapped : 'name a group to extract: (?<name>...)';
}

/** A name in backticks (the way to write any name), when it can be written so; else how. */
function inBackticks(name: string): string {
  return /[`\n]/.test(name) || name.length > 200 ? 'a field name, in backticks when it has other characters: `name`' : `\`${name}\``;
}

/** A replacement text, or a generic one when it would be too long to be useful. */
function short(text: string, generic: string): string {
  return text.length <= 200 ? text : generic;
}
