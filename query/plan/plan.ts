/**
 * The physical plan of a query: what the scan reads and prunes with, the streaming operators
 * every shard runs on its batches, the boundary where shards hand over (newest rows, partial
 * stats, or all rows), and the operators the coordinator runs on the merged rows.
 */
import type { ColumnPredicate } from '../../storage/scan';
import type { StageNode } from '../syntax/ast';
import type { EvalContext, StaticType } from '../value';
import type { BatchOp, SortKey, StatsSpec } from './operators';

export type RowOp =
  | { kind: 'batch'; op: BatchOp }
  | { kind: 'head'; count: number }
  | { kind: 'tail'; count: number }
  | { kind: 'sort'; keys: SortKey[] }
  | { kind: 'dedup'; fields: string[] }
  | { kind: 'stats'; spec: StatsSpec; top: TopFinish | null }
  | { kind: 'topFinish'; finish: TopFinish };

/** The ranking part of `top` after its counts: percent within the `by` group, N per group. */
export interface TopFinish {
  count: number;
  byCount: number;
  fieldCount: number;
}

/** Where shards stop and the coordinator takes over. */
export type Boundary =
  /** No blocking stage: shards return their newest rows (the answer's page) and a match count. */
  | { kind: 'events' }
  /** A `head N` in the current (newest first) order: shards return their newest N rows. */
  | { kind: 'head'; count: number }
  /**
   * `stats` (or `top`, desugared): shards return partial states. `countsPerInterval`: the stats is
   * `count()` by `bin(_time, step)` alone (the step in microseconds), which a shard with no filter
   * answers from segment headers (storage/time-counts.ts).
   */
  | { kind: 'stats'; spec: StatsSpec; top: TopFinish | null; countsPerInterval?: number }
  /**
   * `sort` followed by `head N` (count N), or `sort` as the last stage (count null: the page asked
   * for, or every row when streaming): shards return their first rows in the sort order.
   */
  | { kind: 'sorted'; keys: SortKey[]; count: number | null; label: string }
  /** A stage that needs all rows (sort, tail, dedup): shards return every row. */
  | { kind: 'rows' };

export interface ScanSpec {
  /** Stored columns to decode (null = all). */
  columns: string[] | null;
  /** Tokens every match contains (bloom pruning). */
  tokens: string[];
  /** Texts every match's stored `_raw` contains (search terms and phrases): shards search the bytes first. */
  rawLiterals: string[];
  /** Column-statistics pruning hints. */
  predicates: ColumnPredicate[];
  /** The pushed filter's text, for explain. */
  filters: string[];
}

export interface QueryPlan {
  /** The validated query (a `Query` of query/stages). */
  query: { readonly stages: readonly StageNode[] };
  indexPatterns: string[];
  ctx: EvalContext;
  scan: ScanSpec;
  shardOps: BatchOp[];
  /** Text of each shard operator, for explain and profiles. */
  shardOpLabels: string[];
  boundary: Boundary;
  rowOps: RowOp[];
  rowOpLabels: string[];
  resultKind: 'events' | 'aggregate';
  /** Output columns of an aggregate result, in order, with their static types. */
  columns: { name: string; type: StaticType }[];
  /** Static types of fields at the end (time fields print as ISO 8601). */
  finalTypes: Map<string, StaticType>;
  /** Named rewrites that fired. */
  rewrites: string[];
}
