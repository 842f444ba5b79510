/**
 * What a stage module holds: everything specific to one stage of the language, from its keyword to
 * the operator it becomes in a plan. The registry (registry.ts) lists the modules; the lexer, the
 * front end's validation, the printer and the planner read it instead of switching over stages.
 */
import type { Boundary, RowOp, ScanSpec } from '../plan/plan';
import type { BatchOp } from '../plan/operators';
import type { Schema } from '../plan/schema';
import type { NamePattern, Pos, StageNode } from '../syntax/ast';
import type { StageMatch } from '../syntax/builders';
import type { QueryError } from '../syntax/errors';
import type { ArgumentLexing } from '../syntax/lexer';
import type { ExprScope } from '../syntax/validate-expr';
import type { EvalContext } from '../value';

export interface StageModule<Parsed extends StageNode, Node extends StageNode> {
  /** The keyword, and the `kind` of the stage's nodes. */
  readonly name: Node['kind'];
  /** How the lexer reads the words after the keyword. */
  readonly argumentLexing: ArgumentLexing;
  /** Works on a stream of events (allowed in live tail); the others need all input. */
  readonly streaming: boolean;
  /** The answer becomes a table of columns (an aggregate result) instead of events. */
  readonly aggregates?: boolean;
  /** What a syntax error says is expected right after the keyword, where the grammar's words are too vague. */
  readonly expectedAfterName?: string;

  /** The node from the grammar's match; runs once the whole query parsed. */
  build(match: StageMatch): Parsed;
  /** Checks the node (errors go to the context) and returns its final form, or null when there is none. */
  validate(parsed: Parsed, context: ValidationContext): Node | null;
  /** The canonical text (docs/language.md); parsing it gives the same node. */
  print(node: Node): string;

  /** Filter pushdown into the scan, while names still mean stored columns: the rewrite's name, or null. */
  pushDown?(node: Node, scan: ScanPushdown): string | null;
  /** After this stage a name may no longer be a stored column: later filters are not pushed down. */
  hidesStoredNames?(node: Node): boolean;
  /** What the stage is on every shard: a streaming operator, or the place where shards hand over. */
  atShard?(node: Node, place: ShardPlace): ShardStep;
  /** The operator it is on the merged rows at the coordinator. */
  atCoordinator?(node: Node, place: PlanPlace): RowOp;
}

/** The state validation carries from stage to stage, and where errors go. */
export interface ValidationContext {
  readonly errors: QueryError[];
  /** The query as the user wrote it. */
  readonly source: string;
  /** Where the stage is in the query (0: first). */
  readonly position: number;
  /** Output columns of the last stats/top, by canonical aggregate text (null: none yet). */
  columns: Map<string, string> | null;
  /** Indexes of the first stage, for the E011 suggestion. */
  indexes: NamePattern[];
  error(code: QueryError['code'], message: string, pos: Pos, suggestion: string): void;
  /** The scope for checking an expression at this point (`place`: "in where", for messages). */
  scope(place: string): ExprScope;
}

/** Where a stage is planned: the fields so far and the query's clock. */
export interface PlanPlace {
  readonly schema: Schema;
  readonly ctx: EvalContext;
}

export interface ShardPlace extends PlanPlace {
  /** The stage after this one, if any (`sort | head N` is planned as one step). */
  readonly next: StageNode | undefined;
}

export interface ScanPushdown {
  readonly scan: ScanSpec;
  readonly schema: Schema;
  /** The stored column a name reads (aliases resolved), or null when a stage defined the name. */
  storedName(name: string): string | null;
}

export type ShardStep =
  /** A streaming operator every shard runs on its batches. */
  | { kind: 'stream'; op: BatchOp }
  /**
   * The shards hand over here: what they return, the rewrites that fired, and how many stages the
   * hand-over consumed (0: the stage itself runs at the coordinator).
   */
  | { kind: 'handOver'; boundary: Boundary; rewrites: string[]; consumed: number };
