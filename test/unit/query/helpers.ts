// Shared helpers for the query front-end tests.

import { strict as assert } from 'assert';
import { checkQuery, parseQuery, QueryError, type Expr, type Query, type Stage } from '../../../query/stages';

/** A deep copy without `pos` fields, to compare AST shapes. */
export function noPos<T>(x: T): T {
  return JSON.parse(JSON.stringify(x, (k, v: unknown) => (k === 'pos' ? undefined : v))) as T;
}

/** The stages after `from main`, without positions. */
export function stagesOf(text: string): Stage[] {
  return noPos(parseQuery(`from main | ${text}`).stages.slice(1));
}

export function stageOf(text: string): Stage {
  return stagesOf(text)[0]!;
}

/** The expression of `where <text>`, without positions. */
export function whereExpr(text: string): Expr {
  const s = stageOf(`where ${text}`);
  assert.equal(s.kind, 'where');
  return (s as { expr: Expr }).expr;
}

/** The error a query gives (it must give one). */
export function errorOf(text: string, variables?: Record<string, unknown>): QueryError {
  try {
    parseQuery(text, variables);
  } catch (e) {
    assert.ok(e instanceof QueryError, `expected a QueryError, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected an error for: ${text}`);
}

/** Asserts the first error's code and 1-based position. */
export function assertError(text: string, code: string, line: number, column: number, variables?: Record<string, unknown>): QueryError {
  const e = errorOf(text, variables);
  assert.deepEqual(
    { code: e.code, line: e.line, column: e.column },
    { code, line, column },
    `${text.slice(0, 300)}\n-> ${e.message.slice(0, 300)}`,
  );
  return e;
}

export function ok(text: string, variables?: Record<string, unknown>): Query {
  const r = checkQuery(text, variables);
  if (!r.ok) assert.fail(`${text}\n-> ${r.errors.map((e) => `${e.code} ${e.line}:${e.column} ${e.message}`).join('; ')}`);
  return r.query;
}

// Expected-shape builders.
export const f = (name: string): Expr => ({ kind: 'field', name }) as Expr;
export const n = (value: number): Expr => ({ kind: 'number', value }) as Expr;
export const s = (value: string): Expr => ({ kind: 'string', value }) as Expr;
export const bin = (op: string, left: Expr, right: Expr): Expr => ({ kind: 'binary', op, left, right }) as unknown as Expr;
export const and = (...operands: Expr[]): Expr => ({ kind: 'logical', op: 'and', operands }) as Expr;
export const or = (...operands: Expr[]): Expr => ({ kind: 'logical', op: 'or', operands }) as Expr;
export const not = (operand: Expr): Expr => ({ kind: 'not', operand }) as Expr;
export const call = (name: string, ...args: Expr[]): Expr => ({ kind: 'call', name, args }) as unknown as Expr;
export const agg = (name: string, ...args: Expr[]): Expr => ({ kind: 'aggregate', name, args, column: null }) as unknown as Expr;
