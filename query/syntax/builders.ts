// Postprocessors of grammar.ne. Nearley runs them for every partial parse, so they must be O(1):
// lists grow as persistent `Seq`s, and a stage is kept as its match (`stage`), which the stage's
// module in query/stages builds into its node once, after the parse succeeded.

import type * as A from './ast';
import { NAME_SOURCE, type Token } from './lexer';

/* eslint-disable @typescript-eslint/no-explicit-any */
type D = any[];

/** A persistent list that grows at the end in O(1); converted to an array once. */
export class Seq<T> {
  constructor(
    readonly prev: Seq<T> | null,
    readonly item: T,
  ) {}
  toArray(): T[] {
    const out: T[] = [];
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- a cursor walking the list from this node
    for (let s: Seq<T> | null = this; s !== null; s = s.prev) out.push(s.item);
    return out.reverse();
  }
}

/** A stage name the grammar does not know; validation turns it into E002/E003/E006. */
export interface UnknownStage {
  kind: 'unknown';
  name: string;
  tokens: Token[];
  pos: A.Pos;
}
/** A count as written (`head -3` parses so that validation can say E012, not E001). */
export interface CountSpec {
  value: number;
  pos: A.Pos;
  text: string;
}

/**
 * A stage as the grammar matched it: its keyword token and nearley's data for the rule. The stage's
 * own module builds its node from it, once the whole parse succeeded.
 */
export interface StageMatch {
  readonly keyword: Token;
  readonly data: GrammarData;
}
/** The data nearley hands a postprocessor: one entry per symbol of the rule. */
export type GrammarData = readonly unknown[];

const tok = (x: unknown): Token => x as Token;

// ---------------------------------------------------------------------------------------------------
// Lists

export const seqStart = (d: D): Seq<unknown> => new Seq(null, d[0]);
/** `list , item` and `list item`. */
export const seqPush = (d: D): Seq<unknown> => new Seq(d[0] as Seq<unknown>, d[d.length - 1]);
export const seqTokenStart = (d: D): Seq<Token> => new Seq(null, tok(d[0]));
export const seqTokenPush = (d: D): Seq<Token> => new Seq(d[0] as Seq<Token>, tok(d[1]));
export const first = (d: D): unknown => d[0];

// ---------------------------------------------------------------------------------------------------
// Expressions

export function literal(d: D): A.Expr {
  const t = tok(d[0]);
  switch (t.type) {
    case 'number':
      return { kind: 'number', value: t.num, pos: t.pos };
    case 'duration':
      return { kind: 'duration', micros: t.num, pos: t.pos };
    case 'string':
      return { kind: 'string', value: t.value, pos: t.pos };
    case 'kw_true':
      return { kind: 'boolean', value: true, pos: t.pos };
    case 'kw_false':
      return { kind: 'boolean', value: false, pos: t.pos };
    default:
      return { kind: 'null', pos: t.pos };
  }
}

export function fieldRef(d: D): A.FieldRef {
  const t = tok(d[0]);
  return { kind: 'field', name: t.value, pos: t.pos };
}

export function fieldName(d: D): A.FieldName {
  const t = tok(d[0]);
  return { name: t.value, pos: t.pos };
}

/** A call before validation: the name decides scalar or aggregate later. */
export function call(d: D): A.CallExpr {
  const t = tok(d[0]);
  const args = d.length === 4 ? (d[2] as Seq<A.Expr>).toArray() : [];
  return { kind: 'call', name: t.value.toLowerCase() as A.ScalarFunctionName, args, pos: t.pos };
}

export function paren(d: D): A.Expr {
  return d[1] as A.Expr;
}

export function negate(d: D): A.Expr {
  const t = tok(d[0]);
  const operand = d[1] as A.Expr;
  // Fold `-5` into a literal so that planner and printer see the number the user meant.
  if (operand.kind === 'number') return { kind: 'number', value: -operand.value, pos: t.pos };
  if (operand.kind === 'duration') return { kind: 'duration', micros: -operand.micros, pos: t.pos };
  return { kind: 'negate', operand, pos: t.pos };
}

export function not(d: D): A.NotExpr {
  return { kind: 'not', operand: d[1] as A.Expr, pos: tok(d[0]).pos };
}

/** Two-operand and/or; normalize.ts flattens chains. */
export function logical(d: D): A.LogicalExpr {
  const left = d[0] as A.Expr;
  const op = tok(d[1]).type === 'kw_and' ? 'and' : 'or';
  return { kind: 'logical', op, operands: [left, d[2] as A.Expr], pos: left.pos };
}

const BINARY_OPS: Record<string, A.BinaryOp> = {
  eq: '=',
  eqeq: '=',
  neq: '!=',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  plus: '+',
  minus: '-',
  star: '*',
  slash: '/',
  percent: '%',
};

export function binary(d: D): A.BinaryExpr {
  const left = d[0] as A.Expr;
  const op = BINARY_OPS[tok(d[1]).type]!;
  return { kind: 'binary', op, left, right: d[2] as A.Expr, pos: left.pos };
}

/** `x in (...)` and `x not in (...)`. */
export function inList(d: D): A.InExpr {
  const operand = d[0] as A.Expr;
  const negated = d.length === 6;
  const list = (d[negated ? 4 : 3] as Seq<A.Expr>).toArray();
  return { kind: 'in', operand, list, negated, pos: operand.pos };
}

/** `x like p`, `x not like p`, `x has t`, `x not has t`. */
export function likeOrHas(d: D): A.LikeExpr | A.HasExpr {
  const operand = d[0] as A.Expr;
  const negated = d.length === 4;
  const word = tok(d[negated ? 2 : 1]).type;
  const right = d[d.length - 1] as A.Expr;
  return word === 'kw_like'
    ? { kind: 'like', operand, pattern: right, negated, pos: operand.pos }
    : { kind: 'has', operand, term: right, negated, pos: operand.pos };
}

export function regexMatch(d: D): A.RegexMatchExpr {
  const operand = d[0] as A.Expr;
  const p = tok(d[2]);
  const pattern: A.StringLiteral = { kind: 'string', value: p.value, pos: p.pos };
  return { kind: 'regex', operand, pattern, negated: tok(d[1]).type === 'nmatch', pos: operand.pos };
}

export function isNull(d: D): A.IsNullExpr {
  const operand = d[0] as A.Expr;
  return { kind: 'isnull', operand, negated: d.length === 4, pos: operand.pos };
}

// ---------------------------------------------------------------------------------------------------
// Search

export function searchToken(d: D): A.SearchExpr {
  const t = tok(d[0]);
  if (t.type === 'string') return { kind: 'phrase', text: t.value, pos: t.pos };
  return { kind: 'term', text: t.value, glob: /[*?]/.test(t.value), pos: t.pos };
}

/** Search field matches whose field is a bare term that is not a field name (`status>=500`). */
export const invalidSearchFields = new WeakSet<A.SearchFieldMatch>();
const BARE_FIELD = new RegExp(`^${NAME_SOURCE}$`);

export function searchField(d: D): A.SearchFieldMatch {
  const f = tok(d[0]);
  const v = tok(d[2]);
  const quoted = v.type === 'string';
  const node: A.SearchFieldMatch = {
    kind: 'fieldmatch',
    field: f.value,
    op: tok(d[1]).type === 'neq' ? '!=' : '=',
    value: v.value,
    glob: !quoted && /[*?]/.test(v.value),
    quoted,
    pos: f.pos,
  };
  if (f.type === 'term' && !BARE_FIELD.test(f.value)) invalidSearchFields.add(node);
  return node;
}

/** `a OR b`, `a AND b` and the implied `a b`. */
export function searchLogical(d: D): A.SearchLogical {
  const left = d[0] as A.SearchExpr;
  const right = d[d.length - 1] as A.SearchExpr;
  const kind = d.length === 3 && tok(d[1]).type === 'kw_or' ? 'or' : 'and';
  return { kind, operands: [left, right], pos: left.pos };
}

export function searchNot(d: D): A.SearchNot {
  return { kind: 'not', operand: d[1] as A.SearchExpr, pos: tok(d[0]).pos };
}

export function searchParen(d: D): A.SearchExpr {
  return d[1] as A.SearchExpr;
}

// ---------------------------------------------------------------------------------------------------
// Stage parts

export function namePattern(d: D): A.NamePattern {
  const t = tok(d[0]);
  const quoted = t.type === 'qident';
  return { pattern: t.value, glob: !quoted && /[*?]/.test(t.value), quoted, pos: t.pos };
}

export function assignment(d: D): A.Assignment {
  const f = tok(d[0]);
  return { name: f.value, expr: d[2] as A.Expr, pos: f.pos };
}

export function rename(d: D): A.Rename {
  const from = fieldName([d[0]]);
  return { from, to: fieldName([d[2]]), pos: from.pos };
}

/** A count token, or `-` and a count: kept as a signed number for E012. */
export function count(d: D): CountSpec {
  if (d.length === 2) {
    const n = tok(d[1]);
    return { value: -n.num, pos: tok(d[0]).pos, text: `-${n.text}` };
  }
  const n = tok(d[0]);
  return { value: n.num, pos: n.pos, text: n.text };
}

/** An expression with an optional `as name` (stats aggregates and keys). */
export interface Aliased {
  expr: A.Expr;
  alias: A.FieldName | null;
}
export function aliased(d: D): Aliased {
  return { expr: d[0] as A.Expr, alias: d.length === 3 ? fieldName([d[2]]) : null };
}

export function sortKey(d: D): A.SortKey {
  const expr = d[0] as A.Expr;
  const direction = d.length === 2 && tok(d[1]).type === 'kw_desc' ? 'desc' : 'asc';
  return { expr, direction, pos: expr.pos };
}

// ---------------------------------------------------------------------------------------------------
// Stages: O(1) here; the lists inside are only turned into arrays when the stage is built

export const stage = (d: D): StageMatch => ({ keyword: tok(d[0]), data: d });

/** A list the grammar built (a `Seq`) as an array. */
export const listOf = <T>(x: unknown): T[] => (x as Seq<T>).toArray();
/** The position of a stage: its keyword's. */
export const stagePos = (match: StageMatch): A.Pos => match.keyword.pos;

export function unknownStage(match: StageMatch): UnknownStage {
  const t = match.keyword;
  return { kind: 'unknown', name: t.value, tokens: match.data.length === 2 ? listOf<Token>(match.data[1]) : [], pos: t.pos };
}
