// The stages of the language, in the order messages list them. The lexer, validation, the printer
// and the planner find a stage's module here by its name.

import { dedup, type DedupStage } from './dedup';
import { drop, type DropStage } from './drop';
import { extend, type ExtendStage } from './extend';
import { from, type FromStage } from './from';
import { head, type HeadStage } from './head';
import { keep, type KeepStage } from './keep';
import { parse, type ParsedParseStage, type ParseStage } from './parse';
import { rename, type RenameStage } from './rename';
import { search, type SearchStage } from './search';
import { sort, type SortStage } from './sort';
import type { StageModule } from './stage';
import { where, type WhereStage } from './where';
import { stats, type ParsedStatsStage, type StatsStage } from './stats';
import { tail, type TailStage } from './tail';
import { top, type ParsedTopStage, type TopStage } from './top';
import type { ParsedCountStage } from './count';

export type Stage =
  | FromStage
  | SearchStage
  | WhereStage
  | ExtendStage
  | ParseStage
  | KeepStage
  | DropStage
  | RenameStage
  | HeadStage
  | TailStage
  | DedupStage
  | StatsStage
  | SortStage
  | TopStage;
export type StageKind = Stage['kind'];

/** What the grammar's matches are built into, before validation. */
export type ParsedStage =
  | FromStage
  | SearchStage
  | WhereStage
  | ExtendStage
  | ParsedParseStage
  | KeepStage
  | DropStage
  | RenameStage
  | ParsedCountStage<'head'>
  | ParsedCountStage<'tail'>
  | DedupStage
  | ParsedStatsStage
  | SortStage
  | ParsedTopStage;

/** A validated query: `stages[0]` is always a `from` stage, and no other stage is. */
export interface Query {
  stages: Stage[];
}

/** Any stage's module, as the readers of the registry see it. */
export type AnyStageModule = StageModule<ParsedStage, Stage>;

const STAGES: readonly AnyStageModule[] = [from, search, where, extend, parse, keep, drop, rename, head, tail, dedup, stats, sort, top];

export const STAGE_NAMES: readonly StageKind[] = STAGES.map((stage) => stage.name);

/** Stages that work on a stream of events (allowed in live tail); the others need all input. */
export const STREAMING_STAGES: ReadonlySet<StageKind> = new Set(STAGES.filter((stage) => stage.streaming).map((stage) => stage.name));

const BY_NAME = new Map<string, AnyStageModule>(STAGES.map((stage) => [stage.name, stage]));

export function stageModules(): readonly AnyStageModule[] {
  return STAGES;
}

/** The module of a stage kind (a validated node's `kind`, or a keyword the lexer matched). */
export function stageModule(kind: string): AnyStageModule {
  const module = BY_NAME.get(kind);
  if (module === undefined) throw new Error(`no stage ${kind}`);
  return module;
}
