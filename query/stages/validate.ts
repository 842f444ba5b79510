// Stage-level checks after parsing and the final AST: the query starts with `from` (E006), stage
// names are known (E002) and not legacy (E003); each stage's own checks are in its module.

import { isValidIndexName } from '../../storage/core/event';
import type { NamePattern, Pos } from '../syntax/ast';
import type { UnknownStage } from '../syntax/builders';
import { QueryError, show } from '../syntax/errors';
import { LEGACY_STAGES, STAGE_HINTS, legacySuggestion } from '../syntax/legacy';
import { hintFor, nearest } from '../syntax/suggest';
import type { ExprScope } from '../syntax/validate-expr';
import { STAGE_NAMES, stageModule, type ParsedStage, type Query, type Stage } from './registry';
import type { ValidationContext } from './stage';

export interface Validated {
  query: Query;
  /** Sorted by position; the query is only usable when this is empty. */
  errors: QueryError[];
}

export function validate(parsed: Array<ParsedStage | UnknownStage>, source: string): Validated {
  const context = new Context(source);
  const stages: Stage[] = [];
  parsed.forEach((s, i) => {
    context.position = i;
    const stage = validateStage(s, context);
    if (stage) stages.push(stage);
  });
  const errors = context.errors.sort((a, b) => a.offset - b.offset);
  return { query: { stages }, errors };
}

class Context implements ValidationContext {
  readonly errors: QueryError[] = [];
  position = 0;
  columns: Map<string, string> | null = null;
  indexes: NamePattern[] = [];

  constructor(readonly source: string) {}

  error(code: QueryError['code'], message: string, pos: Pos, suggestion: string): void {
    this.errors.push(new QueryError(code, message, pos, suggestion));
  }

  scope(place: string): ExprScope {
    return { errors: this.errors, columns: this.columns, inAggregate: false, place };
  }
}

function validateStage(s: ParsedStage | UnknownStage, context: Context): Stage | null {
  if (context.position === 0 && s.kind !== 'from') {
    notFrom(s, context);
    return null;
  }
  if (s.kind === 'unknown') {
    unknown(s, context);
    return null;
  }
  return stageModule(s.kind).validate(s, context);
}

function notFrom(s: ParsedStage | UnknownStage, context: Context): void {
  if (s.kind === 'unknown' && LEGACY_STAGES.has(s.name.toLowerCase())) {
    unknown(s, context);
    return;
  }
  const name = s.kind === 'unknown' ? s.name : s.kind;
  const typo = s.kind === 'unknown' && nearest(s.name, ['from']) !== null;
  // A bare word where the query starts is most likely the index: `web | head` means `from web | head`.
  const index = s.kind === 'unknown' && !typo && isValidIndexName(s.name);
  const rest = context.source.trim();
  const suggestion = typo ? 'from' : rest.length > 200 ? 'from <index> | ' : index ? `from ${rest}` : `from <index> | ${rest}`;
  const hint = typo ? '; did you mean from?' : index ? `; did you mean from ${s.name}?` : '';
  context.error('E006', `a query must start with "from <index>", found ${show(name)}${hint}`, s.pos, suggestion);
}

function unknown(s: UnknownStage, context: Context): void {
  const lower = s.name.toLowerCase();
  if (LEGACY_STAGES.has(lower)) {
    const suggestion = legacySuggestion(s, context.source);
    const shown = suggestion.length > 100 ? `${suggestion.slice(0, 97)}...` : suggestion;
    context.error('E003', `"${lower}" is a legacy stage; use: ${shown}`, s.pos, suggestion);
    return;
  }
  const hint = hintFor(STAGE_HINTS, lower) ?? nearest(lower, STAGE_NAMES);
  const message = hint
    ? `unknown stage ${show(s.name)}; did you mean ${hint}?`
    : `unknown stage ${show(s.name)}; the stages are ${STAGE_NAMES.join(', ')}`;
  context.error('E002', message, s.pos, hint ?? `one of: ${STAGE_NAMES.join(', ')}`);
}
