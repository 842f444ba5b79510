// Runs the nearley grammar over the token stream and turns nearley's failures into E001 errors that
// say, in plain words, what was expected.

import type moo from 'moo';
import nearley from 'nearley';
import grammar from './grammar';
import type { Seq, StageMatch } from './builders';
import { QueryError, show } from './errors';
import { TokenStream, type Token } from './lexer';
import type { SourceMap } from './positions';

/** What the parser needs of the stages (query/stages makes it from its registry). */
export interface StageLexicon {
  /** The lexer, which knows the stage names. */
  readonly lexer: moo.Lexer;
  /** The stage names in the order messages list them. */
  readonly stageNames: readonly string[];
  /** What a stage expects right after its name, by token type, where the grammar's own words are too vague. */
  readonly expectedAfterName: ReadonlyMap<string, string>;
}

const compiled = nearley.Grammar.fromCompiled(grammar as unknown as nearley.CompiledRules);

interface ParserInternals {
  table: Array<{ states: Array<{ rule: { symbols: unknown[] }; dot: number }> }>;
  reportError: () => string;
  reportLexerError: () => string;
}

function newParser(lexer: TokenStream): nearley.Parser {
  const parser = new nearley.Parser(compiled, { lexer: lexer as unknown as nearley.Lexer });
  // Our own messages replace nearley's, which are costly to build (they dump the parse table).
  const internals = parser as unknown as ParserInternals;
  internals.reportError = () => 'syntax error';
  internals.reportLexerError = () => 'syntax error';
  return parser;
}

/** Parses the (substituted) text into the matches of its stages; throws QueryError. */
export function parseStages(text: string, map: SourceMap, lexicon: StageLexicon): StageMatch[] {
  const lexer = new TokenStream(lexicon.lexer, map);
  const parser = newParser(lexer);
  try {
    parser.feed(text);
  } catch (e) {
    if (lexer.pending) throw lexer.pending;
    if (e instanceof QueryError) throw e;
    throw unexpectedToken(parser, lexer.last!, lexer.previous, lexicon);
  }
  const results = parser.results as Array<Seq<StageMatch>>;
  if (results.length === 0) throw unexpectedEnd(parser, lexer, map, lexicon);
  return results[0]!.toArray();
}

/** How many parses the grammar finds (exactly one for any valid query: the grammar is unambiguous). */
export function countParses(text: string, map: SourceMap, lexicon: StageLexicon): number {
  const lexer = new TokenStream(lexicon.lexer, map);
  const parser = newParser(lexer);
  parser.feed(text);
  return parser.results.length;
}

// ---------------------------------------------------------------------------------------------------
// Messages

function expectedTypes(parser: nearley.Parser, column: number): Set<string> {
  const out = new Set<string>();
  const col = (parser as unknown as ParserInternals).table[column];
  for (const state of col?.states ?? []) {
    const sym = state.rule.symbols[state.dot];
    if (sym !== null && typeof sym === 'object' && 'type' in sym) out.add(String((sym as { type: unknown }).type));
  }
  return out;
}

/** A piece of query text for a suggestion, in backticks, shortened when long. */
function code(text: string): string {
  return `\`${text.length > 30 ? `${text.slice(0, 27)}...` : text}\``;
}

function unexpectedToken(parser: nearley.Parser, found: Token, previous: Token | undefined, lexicon: StageLexicon): QueryError {
  const table = (parser as unknown as ParserInternals).table;
  const expected = (previous && lexicon.expectedAfterName.get(previous.type)) ?? describeExpected(expectedTypes(parser, table.length - 2));
  const after = previous ? ` after ${show(previous.text)}` : '';
  const what = found.type === 'other' ? `expected a stage name after "|"` : `expected ${expected}${after}`;
  // `a || b` lexes as the end of a stage and an empty one.
  const adjacent = previous?.type === 'pipe' && previous.pos.offset + 1 === found.pos.offset;
  const logicalOr = found.type === 'other' && found.text === '|' && adjacent;
  const hint = logicalOr ? '; use "or" for a logical or' : '';
  const suggestion = logicalOr
    ? 'or'
    : found.type === 'other'
      ? `write a stage name here: ${lexicon.stageNames.join(', ')}`
      : `write ${expected} here`;
  return new QueryError('E001', `${what}, found ${show(found.text)}${hint}`, found.pos, suggestion);
}

function unexpectedEnd(parser: nearley.Parser, lexer: TokenStream, map: SourceMap, lexicon: StageLexicon): QueryError {
  const last = lexer.last;
  if (!last) return new QueryError('E006', 'the query is empty: it must start with "from <index>"', map.pos(0), 'from <index>');
  const table = (parser as unknown as ParserInternals).table;
  const types = expectedTypes(parser, table.length - 1);
  const expected = lexicon.expectedAfterName.get(last.type) ?? describeExpected(types);
  // After an operator the missing piece is its operand: "add a value after `>`".
  const operand = isExpressionStart(types) && (OPERATORS.includes(last.type) || SYMBOLS[last.type] !== undefined);
  const suggestion = `add ${operand ? expected.replace(/^an expression/, 'a value') : expected} after ${code(last.text)}`;
  return new QueryError('E001', `expected ${expected} after ${show(last.text)}, found the end of the query`, map.pos(last.end), suggestion);
}

function isExpressionStart(types: Set<string>): boolean {
  return types.has('ident') && types.has('number') && types.has('lparen');
}

const EXPRESSION_START = ['number', 'string', 'duration', 'kw_true', 'kw_false', 'kw_null', 'ident', 'qident', 'lparen', 'minus', 'kw_not'];
const SEARCH_START = ['term', 'string', 'qident', 'lparen', 'kw_not'];
const OPERATORS = [
  'eq',
  'eqeq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'match',
  'nmatch',
  'plus',
  'minus',
  'star',
  'slash',
  'percent',
  'kw_and',
  'kw_or',
  'kw_in',
  'kw_not',
  'kw_like',
  'kw_has',
  'kw_is',
];
const SYMBOLS: Record<string, string> = {
  eq: '=',
  eqeq: '==',
  neq: '!=',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  match: '=~',
  nmatch: '!~',
  plus: '+',
  minus: '-',
  star: '*',
  slash: '/',
  percent: '%',
  lparen: '(',
  rparen: ')',
  comma: ',',
  pipe: '|',
};
const WORDS: Record<string, string> = {
  ident: 'a field name',
  qident: 'a field name',
  pattern: 'a name or glob pattern',
  term: 'a search term',
  string: 'a string',
  number: 'a number',
  duration: 'a duration',
};

const ORDER = [
  'an expression',
  'a search term',
  'a stage name',
  'a field name',
  'a name or glob pattern',
  'a string',
  'a number',
  'a duration',
  'an operator',
];
const rank = (phrase: string): number => {
  const i = ORDER.indexOf(phrase);
  if (i >= 0) return i;
  return phrase === '"|"' ? 1000 : phrase === '","' ? 999 : 100;
};

/** Plain words for a set of expected token types: `an expression or ","`. */
export function describeExpected(types: Set<string>): string {
  const phrases: string[] = [];
  const left = new Set(types);
  const take = (group: string[], phrase: string): void => {
    for (const t of group) left.delete(t);
    phrases.push(phrase);
  };
  if (isExpressionStart(left)) take(EXPRESSION_START, 'an expression');
  if (left.has('term') && left.has('string')) take(SEARCH_START, 'a search term');
  const stages = [...left].filter((t) => t.startsWith('st_'));
  if (stages.length > 0) take(stages, 'a stage name');
  if (OPERATORS.filter((t) => left.has(t)).length >= 4) take(OPERATORS, 'an operator');
  // `head -3` parses only to report E012; "-" is not worth suggesting. A backtick name is a name.
  if (left.has('number')) left.delete('minus');
  if (left.has('pattern')) left.delete('qident');
  for (const t of left) {
    const phrase = WORDS[t] ?? (SYMBOLS[t] !== undefined ? `"${SYMBOLS[t]}"` : t.startsWith('kw_') ? `"${t.slice(3)}"` : t);
    if (!phrases.includes(phrase)) phrases.push(phrase);
  }
  phrases.sort((a, b) => rank(a) - rank(b));
  if (phrases.length === 0) return 'nothing more';
  if (phrases.length === 1) return phrases[0]!;
  return `${phrases.slice(0, -1).join(', ')} or ${phrases[phrases.length - 1]}`;
}
