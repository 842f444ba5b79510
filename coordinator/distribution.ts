/**
 * A query over the cluster, as the coordinator runs it. The node side (node/cluster/) gives the
 * coordinator a Distribution: for one query, the cluster as that query sees it (owners, which
 * nodes can answer, the targets) and the keys to ask for: every key some usable node holds in
 * range, plus the keys in range whose owners are all unusable (they come back missing, so the
 * answer says it is partial). scatterGather asks each key of one owner, and the shards' results
 * merge as one node's sessions do (query/exec/shard-results.ts).
 */
import { checkAlive } from '../query/exec/limits';
import type { OpStats } from '../query/exec/execute';
import type { SessionSpec } from '../query/exec/worker-protocol';
import { finishResult, type QueryResultData, type ResultPage } from '../query/exec/result';
import type { TimedRow } from '../query/exec/rows';
import { ShardMerge } from '../query/exec/shard-results';
import type { QueryPlan } from '../query/plan/plan';
import type { QueryProgress } from '../query/exec/progress';
import { describeMissing, type MissingDetail } from './missing-ranges';
import { gatherNewest, type NewestShares } from './newest-share';
import { IndexesUnlistedError, scatterGather, type ClusterView, type Gathered, type ScatterObserver } from './scatter-gather';
import { ProgressSum } from './shard-progress';

export interface QueryRange {
  /** The query's `from` index names and globs. */
  indexPatterns: readonly string[];
  fromMicros: number;
  toMicros: number;
  /** When the query's runtime limit ends it (ms since the epoch): the deadline of every call it makes. */
  deadlineMs: number;
  /**
   * Whether the coordinator may resolve the query's globs to the index names it knows of
   * (ClusterView.listedIndexes): only for a query it can run again from the start when a node
   * refuses the list (IndexesUnlistedError), so not an export. Absent: false.
   */
  listGlobs?: boolean;
}

export interface DistributedQuery {
  view: ClusterView;
  /** The same array as an earlier query's where the view keeps that query's assignment (ClusterView.keptAssignment). */
  keys: readonly string[];
  /** cluster.bucket_span: how much time a key covers, to say which ranges a partial answer lacks. */
  bucketSpanMicros: number;
}

/** What distributed queries tell the node's metrics. */
export interface DistributionObserver extends ScatterObserver {
  /** A query's answer lacked `count` keys (0 for a whole answer). */
  missing?(count: number): void;
  /** A node held an index a query's globs match that the coordinator had not heard of: the query ran again asking the nodes' keys. */
  unlisted?(): void;
}

export interface Distribution {
  /** The cluster as one query sees it now, and the keys it must answer for. */
  prepare(range: QueryRange, signal: AbortSignal): Promise<DistributedQuery>;
  /**
   * Index names a node refused a query's list for (IndexesUnlistedError): the queries after it
   * list them too, rather than be refused again until the members' heartbeats carry them.
   */
  learnIndexes?(names: readonly string[]): void;
  readonly observer: DistributionObserver;
}

export interface DistributedAnswer {
  data: QueryResultData;
  opStats: OpStats[];
  /** Keys no owner could answer for. */
  missing: number;
  /** What those keys stand for (null when none is missing). */
  missingDetail: MissingDetail | null;
  memoryBytes: number;
}

/** Runs a planned query over the cluster; `progress` shows the sum of the shards'. */
export async function runDistributed(
  distribution: Distribution,
  plan: QueryPlan,
  spec: SessionSpec,
  page: ResultPage,
  job: { progress: QueryProgress; signal: AbortSignal; deadlineMs: number },
  onRows: ((rows: TimedRow[]) => Promise<void>) | null,
  /** What this coordinator learnt of each node's part of the newest rows (newest-share.ts). */
  shares: NewestShares,
): Promise<DistributedAnswer> {
  const { signal } = job;
  const sum = new ProgressSum(job.progress, spec.trace);
  const observer = distribution.observer;
  const boundary = plan.boundary;
  const gather = async (
    listGlobs: boolean,
  ): Promise<{ gathered: Gathered; view: ClusterView; bucketSpanMicros: number; merge: ShardMerge }> => {
    job.progress.phase = 'planning';
    const range = { indexPatterns: plan.indexPatterns, fromMicros: spec.fromMicros, toMicros: spec.toMicros, deadlineMs: job.deadlineMs };
    const { view, keys, bucketSpanMicros } = await distribution.prepare({ ...range, listGlobs }, signal);
    checkAlive(signal);
    job.progress.phase = 'scanning';
    // Each node's result merges as it comes, while the others still scan.
    const merge = new ShardMerge(plan, page);
    const gatherObserver: ScatterObserver = {
      result: (_attempt, result) => merge.add(result),
      progress: (attempt, counters) => sum.set(attempt, counters),
      ended: (attempt, node, ms, outcome) => {
        // A failed shard's keys are read again by other owners: its counts would count them twice.
        if (outcome === 'error') sum.drop(attempt);
        observer.ended?.(attempt, node, ms, outcome);
      },
      retried: (node, fragments) => observer.retried?.(node, fragments),
      sharesShort: (fragments) => observer.sharesShort?.(fragments),
    };
    const gathered =
      boundary.kind === 'head' && onRows === null
        ? await gatherNewest(
            { view, spec, keys, count: boundary.count, signal, observer: gatherObserver },
            { shares, scope: [...plan.indexPatterns].sort().join(',') },
          )
        : // Only a head's nodes raise a floor: another query's calls carry none (no run id for RaiseFloor).
          await scatterGather(view, spec, keys, signal, onRows, gatherObserver, boundary.kind === 'head' ? {} : { floor: null });
    return { gathered, view, bucketSpanMicros, merge };
  };
  // A query that is not an export may place its globs' keys from the index names the coordinator
  // knows of; a node holding one it did not know yet refuses, and the query runs again asking the
  // nodes for their keys, with nothing of the first run kept.
  const listGlobs = onRows === null;
  const { gathered, view, bucketSpanMicros, merge } = await gather(listGlobs).catch((error: unknown) => {
    if (!listGlobs || !(error instanceof IndexesUnlistedError)) throw error;
    distribution.learnIndexes?.(error.indexes);
    checkAlive(signal);
    sum.clear();
    observer.unlisted?.();
    return gather(false);
  });
  observer.missing?.(gathered.missing);
  job.progress.phase = 'merging';
  const results = gathered.answers.map((answer) => answer.result);
  sum.finish(results);
  const output = merge.output();
  return {
    data: finishResult(plan, output, page),
    opStats: output.opStats,
    missing: gathered.missing,
    missingDetail:
      gathered.missing === 0
        ? null
        : describeMissing(gathered.missingKeys, (key) => view.owners(key), bucketSpanMicros, spec.fromMicros, spec.toMicros),
    memoryBytes: results.reduce((total, result) => total + result.memoryBytes, 0),
  };
}
