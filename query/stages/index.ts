// The front end of the native query language: `$variable` substitution, lexing, parsing and
// validation into the `Query` AST, its canonical text, and the planner. The core it builds on
// (tokens, expressions, errors) is query/syntax; each stage is a module listed in registry.ts.

import { QueryError } from '../syntax/errors';
import { substitute } from '../syntax/variables';
import { parseStages } from './language';
import { recallQuery, rememberQuery } from './parsed-queries';
import type { Query } from './registry';
import { validate } from './validate';

export type CheckResult = { ok: true; query: Query } | { ok: false; errors: QueryError[] };

/** Every error of the query: one for a syntax error, possibly several found by validation. */
export function checkQuery(text: string, variables?: Readonly<Record<string, unknown>>): CheckResult {
  try {
    const { text: substituted, map } = substitute(text, variables ?? {});
    const known = recallQuery(text, substituted);
    if (known !== undefined) return { ok: true, query: known };
    const { query, errors } = validate(parseStages(substituted, map), text);
    return errors.length === 0 ? { ok: true, query: rememberQuery(text, substituted, query) } : { ok: false, errors };
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

export * from '../syntax';
export { STAGE_NAMES, STREAMING_STAGES, type Query, type Stage, type StageKind } from './registry';
export { stageToString, queryToString } from './print';
export { planQuery, type PlanOptions } from './planner';
export { PARSE_FORMATS, type ParseStage } from './parse';
export type { FromStage } from './from';
export type { SearchStage } from './search';
export type { WhereStage } from './where';
export type { ExtendStage } from './extend';
export type { KeepStage } from './keep';
export type { DropStage } from './drop';
export type { RenameStage } from './rename';
export type { HeadStage } from './head';
export type { TailStage } from './tail';
export type { DedupStage } from './dedup';
export type { StatsAggregate, StatsKey, StatsStage } from './stats';
export type { SortStage } from './sort';
export type { TopStage } from './top';
