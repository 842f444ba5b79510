// The AST of the native query language (docs/language.md). Every node carries the position of its
// first character in the original query text (before `$variable` substitution).

import type { AggregateFunctionName } from '../aggregates/names';
import type { ScalarFunctionName } from '../functions/names';

/** 1-based line and column, 0-based offset (UTF-16 code units). */
export interface Pos {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

// ---------------------------------------------------------------------------------------------------
// Expressions

export interface StringLiteral {
  kind: 'string';
  value: string;
  pos: Pos;
}
export interface NumberLiteral {
  kind: 'number';
  value: number;
  pos: Pos;
}
export interface BooleanLiteral {
  kind: 'boolean';
  value: boolean;
  pos: Pos;
}
export interface NullLiteral {
  kind: 'null';
  pos: Pos;
}
/** `500ms`, `5m`: always an integer count of microseconds (negative after a folded unary minus). */
export interface DurationLiteral {
  kind: 'duration';
  micros: number;
  pos: Pos;
}
export interface FieldRef {
  kind: 'field';
  name: string;
  pos: Pos;
}

export type Literal = StringLiteral | NumberLiteral | BooleanLiteral | NullLiteral | DurationLiteral;

/** `-x`. A minus directly before a number or duration literal is folded into the literal. */
export interface NegateExpr {
  kind: 'negate';
  operand: Expr;
  pos: Pos;
}
export interface NotExpr {
  kind: 'not';
  operand: Expr;
  pos: Pos;
}

/** `and` / `or` chains are flattened: `a and b and c` is one node with three operands. */
export interface LogicalExpr {
  kind: 'logical';
  op: 'and' | 'or';
  operands: Expr[];
  pos: Pos;
}

/** `==` is stored as `=`. */
export type ComparisonOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%';
export type BinaryOp = ComparisonOp | ArithmeticOp;
export interface BinaryExpr {
  kind: 'binary';
  op: BinaryOp;
  left: Expr;
  right: Expr;
  pos: Pos;
}

/** `x in (a, b)` / `x not in (a, b)`. */
export interface InExpr {
  kind: 'in';
  operand: Expr;
  list: Expr[];
  negated: boolean;
  pos: Pos;
}
/** `x like "a%_"` / `x not like ...`: `%` any run, `_` one character. */
export interface LikeExpr {
  kind: 'like';
  operand: Expr;
  pattern: Expr;
  negated: boolean;
  pos: Pos;
}
/** `x has "timeout"` / `x not has ...`: case-insensitive whole-token match. */
export interface HasExpr {
  kind: 'has';
  operand: Expr;
  term: Expr;
  negated: boolean;
  pos: Pos;
}
/** `x =~ "re"` (negated: `!~`). The pattern is always a literal, validated for a linear-time engine. */
export interface RegexMatchExpr {
  kind: 'regex';
  operand: Expr;
  pattern: StringLiteral;
  negated: boolean;
  pos: Pos;
}
/** `x is null` / `x is not null`. */
export interface IsNullExpr {
  kind: 'isnull';
  operand: Expr;
  negated: boolean;
  pos: Pos;
}

// The function and aggregate names come from their registries (query/functions, query/aggregates).
export type { AggregateFunctionName, ScalarFunctionName };

/** A scalar function call; `name` is lower-cased. */
export interface CallExpr {
  kind: 'call';
  name: ScalarFunctionName;
  args: Expr[];
  pos: Pos;
}

/**
 * An aggregate call. Inside `stats` it defines a column (`column` is null). In a stage after `stats`
 * (or `top`) it refers to that stage's output column, named by `column` (`sort count() desc`).
 */
export interface AggregateCall {
  kind: 'aggregate';
  name: AggregateFunctionName;
  args: Expr[];
  column: string | null;
  pos: Pos;
}

export type Expr =
  | Literal
  | FieldRef
  | NegateExpr
  | NotExpr
  | LogicalExpr
  | BinaryExpr
  | InExpr
  | LikeExpr
  | HasExpr
  | RegexMatchExpr
  | IsNullExpr
  | CallExpr
  | AggregateCall;

// ---------------------------------------------------------------------------------------------------
// Search (full-text) expressions

/** A bare term, matched case-insensitively against the tokens of `_raw`; `*` and `?` are globs. */
export interface SearchTerm {
  kind: 'term';
  text: string;
  glob: boolean;
  pos: Pos;
}
/** A quoted phrase: a case-insensitive substring/token-sequence match on `_raw`. */
export interface SearchPhrase {
  kind: 'phrase';
  text: string;
  pos: Pos;
}
/** `field=value` / `field!=value`; a bare value may use globs, a quoted one is literal. */
export interface SearchFieldMatch {
  kind: 'fieldmatch';
  field: string;
  op: '=' | '!=';
  value: string;
  glob: boolean;
  quoted: boolean;
  pos: Pos;
}
export interface SearchLogical {
  kind: 'and' | 'or';
  operands: SearchExpr[];
  pos: Pos;
}
export interface SearchNot {
  kind: 'not';
  operand: SearchExpr;
  pos: Pos;
}
export type SearchExpr = SearchTerm | SearchPhrase | SearchFieldMatch | SearchLogical | SearchNot;

// ---------------------------------------------------------------------------------------------------
// Parts of stages (the grammar builds them; each stage's node is in its module in query/stages)

/** A name or glob (`web-*`, `http.*`); a backtick name is `quoted` and never a glob. */
export interface NamePattern {
  pattern: string;
  glob: boolean;
  quoted: boolean;
  pos: Pos;
}
export interface FieldName {
  name: string;
  pos: Pos;
}
export interface Assignment {
  name: string;
  expr: Expr;
  pos: Pos;
}
export interface Rename {
  from: FieldName;
  to: FieldName;
  pos: Pos;
}
export interface SortKey {
  expr: Expr;
  direction: 'asc' | 'desc';
  pos: Pos;
}

export type ParseFormat = 'json' | 'kv' | 'logfmt' | 'regex' | 'pattern' | 'combined' | 'clf' | 'syslog';

/** What every stage node has: its name and the position of that name. */
export interface StageNode {
  kind: string;
  pos: Pos;
}
