// The front end of the native query language: `$variable` substitution, lexing, parsing and
// validation. The planner consumes the `Query` AST (ast.ts).

import type { Query } from './ast';
import { QueryError } from './errors';
import { parseStages } from './parser';
import { validate } from './validate';
import { substitute } from './variables';

export type CheckResult = { ok: true; query: Query } | { ok: false; errors: QueryError[] };

/** Every error of the query: one for a syntax error, possibly several found by validation. */
export function checkQuery(text: string, variables?: Readonly<Record<string, unknown>>): CheckResult {
  try {
    const { text: substituted, map } = substitute(text, variables ?? {});
    const { query, errors } = validate(parseStages(substituted, map), text);
    return errors.length === 0 ? { ok: true, query } : { ok: false, errors };
  } catch (e) {
    if (e instanceof QueryError) return { ok: false, errors: [e] };
    throw e;
  }
}

/** Parses and validates a query; throws the first QueryError. */
export function parseQuery(text: string, variables?: Readonly<Record<string, unknown>>): Query {
  const result = checkQuery(text, variables);
  if (!result.ok) throw result.errors[0]!;
  return result.query;
}

export * from './ast';
export { QueryError, isQueryError, type QueryErrorCode, type QueryErrorJSON } from './errors';
export { substituteVariables, variableNames } from './variables';
export { exprToString, defaultAggregateName, defaultKeyName, aggregateColumnNames, assignColumnNames } from './names';
export { searchToString, stageToString, queryToString } from './print';
export { SCALAR_FUNCTIONS, AGGREGATE_FUNCTIONS, isAggregateFunction, isScalarFunction } from './functions';
export { STAGE_NAMES } from './lexer';
export { PARSE_FORMATS } from './validate';
