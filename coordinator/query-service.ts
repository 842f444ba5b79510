/**
 * Runs queries for the HTTP layer: parse and plan up front (so bad queries answer 400 at once),
 * answer from the result cache when nothing changed, else start a job under the concurrency,
 * memory and runtime limits, and shape the answer with its meta and optional profile. In a
 * cluster (`distribution` set) a query runs over every node (distribution.ts) and the result
 * cache is not used: another node's new events would not invalidate an entry here.
 */
import { executePlan, type OpStats, type ScanSource } from '../query/exec/execute';
import { MemoryBudget, MemoryPool } from '../query/exec/limits';
import type { QueryInput } from '../query/exec/worker-protocol';
import type { QueryWorkerPool } from '../query/exec/session-pool';
import type { QueryResultData } from '../query/exec/result';
import type { TimedRow } from '../query/exec/rows';
import { explainPlan } from '../query/plan/explain';
import type { QueryPlan } from '../query/plan/plan';
import { checkQuery, planQuery, QueryError, type Query } from '../query/stages';
import { refuseInternalIndexes } from '../query/stages/internal-indexes';
import { indexMatcher } from '../storage/scan';
import { bareWordsOf, bareWordWarning, type QueryWarning } from './bare-words';
import { runDistributed, type Distribution } from './distribution';
import { NewestShares } from './newest-share';
import type { Job, JobAnswer, JobManager } from './jobs';
import type { MissingDetail } from './missing-ranges';
import { QuerySlots } from './query-slots';
import { ResultCache, type ChangedSince } from './result-cache';

export type ProfileLevel = 'basic' | 'full' | 'trace';

export interface QueryRequest extends QueryInput {
  profile: ProfileLevel | null;
}

export interface QueryLimits {
  maxConcurrent: number;
  maxQueryRuntimeMs: number;
  maxQueryMemoryBytes: number;
}

/** Thrown when `query.max_concurrent` queries are already running. */
export class TooManyQueriesError extends Error {
  readonly code = 'TOO_MANY_REQUESTS';
}

/** Which of `names` some event of the indexes and time range holds (this node's events). */
export type FieldPresence = (
  indexes: (name: string) => boolean,
  fromMicros: number,
  toMicros: number,
  names: readonly string[],
) => Set<string>;

export class QueryService {
  readonly cache: ResultCache<JobAnswer>;
  readonly pool: MemoryPool;
  /** `query.max_concurrent`, shared with the fragments this node runs for other coordinators. */
  readonly slots: QuerySlots;
  /** Set while the node is in a cluster: queries then run over every node. */
  distribution: Distribution | null = null;
  /** Answers `meta.warnings` about bare words read as fields; null: no warnings. */
  fieldPresence: FieldPresence | null = null;
  /** Each node's part of the newest rows, learnt from the heads this node coordinated. */
  private readonly newestShares = new NewestShares();

  constructor(
    private readonly source: ScanSource,
    private readonly workers: QueryWorkerPool,
    readonly jobs: JobManager,
    private readonly limits: () => QueryLimits,
    poolBytes: number,
    cacheBytes: () => number,
    private readonly dataVersion: () => number,
    changedSince: ChangedSince,
  ) {
    this.pool = new MemoryPool(poolBytes);
    this.slots = new QuerySlots(() => this.limits().maxConcurrent);
    this.cache = new ResultCache<JobAnswer>(cacheBytes, changedSince);
  }

  /**
   * Parses and validates; throws the first QueryError. A user's query may not name an internal
   * index (the audit log); `internal` is for the server's own reads of it.
   */
  parse(text: string, variables: Record<string, unknown>, internal = false): Query {
    const checked = checkQuery(text, variables);
    if (!checked.ok) throw checked.errors[0];
    if (!internal) refuseInternalIndexes(checked.query);
    return checked.query;
  }

  plan(request: QueryRequest): QueryPlan {
    return this.planParsed(this.parse(request.text, request.variables), request);
  }

  private planParsed(query: Query, request: QueryRequest): QueryPlan {
    return planQuery(query, { fromMicros: request.fromMicros, toMicros: request.toMicros, nowMicros: request.nowMicros });
  }

  explain(
    text: string,
    variables: Record<string, unknown>,
    fromMicros: number,
    toMicros: number,
  ): { ok: true; plan: string } | { ok: false; errors: QueryError[] } {
    const checked = checkQuery(text, variables);
    if (!checked.ok) return { ok: false, errors: checked.errors };
    try {
      refuseInternalIndexes(checked.query);
      return { ok: true, plan: explainPlan(planQuery(checked.query, { fromMicros, toMicros, nowMicros: Date.now() * 1000 })) };
    } catch (error) {
      if (error instanceof QueryError) return { ok: false, errors: [error] };
      throw error;
    }
  }

  /**
   * Starts a query. Throws QueryError (400) for bad text and TooManyQueriesError (429); otherwise
   * returns a job (already done when answered from the cache). `internal`: the server's own read
   * of an internal index (the audit log), whose job is unlisted (jobs.ts) and never cached.
   */
  start(
    request: QueryRequest,
    options: { unlimited?: boolean; onRows?: (rows: TimedRow[]) => Promise<void>; internal?: boolean } = {},
  ): { job: Job; plan: QueryPlan } {
    const internal = options.internal === true;
    const query = this.parse(request.text, request.variables, internal);
    const plan = this.planParsed(query, request);
    const limits = this.limits();
    const cacheKey = JSON.stringify([request.text, request.variables, request.fromMicros, request.toMicros, request.limit, request.offset]);
    const distribution = this.distribution;
    const cacheable =
      distribution === null && request.profile === null && !options.unlimited && !internal && !/\bnow\s*\(/i.test(request.text);
    if (cacheable) {
      const cached = this.cache.get(cacheKey);
      if (cached !== undefined) {
        const job = this.jobs.start(request.text, limits.maxQueryRuntimeMs, async (self) => ({
          data: cached.data,
          meta: { ...cached.meta, query_id: self.id, took_ms: 0, cached: true },
        }));
        return { job, plan };
      }
    }
    const releaseSlot = this.slots.tryTake();
    if (releaseSlot === null) {
      throw new TooManyQueriesError(
        `${limits.maxConcurrent} queries and fragments are already running (query.max_concurrent); retry shortly`,
      );
    }
    const version = this.dataVersion();
    const deadlineMs = Date.now() + limits.maxQueryRuntimeMs;
    const job = this.jobs.start(
      request.text,
      limits.maxQueryRuntimeMs,
      async (self) => {
        const started = performance.now();
        const budget = new MemoryBudget(limits.maxQueryMemoryBytes, this.pool);
        const limit = options.unlimited === true ? Number.MAX_SAFE_INTEGER : request.limit;
        try {
          const spec = {
            text: request.text,
            variables: request.variables,
            fromMicros: request.fromMicros,
            toMicros: request.toMicros,
            nowMicros: request.nowMicros,
            limit,
            offset: request.offset,
            profile: request.profile === 'full' || request.profile === 'trace',
            trace: request.profile === 'trace',
            stream: options.onRows !== undefined,
          };
          let answered: {
            data: QueryResultData;
            opStats: OpStats[];
            missing: number;
            missingDetail: MissingDetail | null;
            memoryBytes: number;
          };
          if (distribution === null) {
            const { data, opStats } = await executePlan(this.source, plan, {
              limit,
              offset: request.offset,
              signal: self.controller.signal,
              budget,
              progress: self.progress,
              pool: this.workers,
              spec,
              onRows: options.onRows,
              onPreview: (rows) => {
                if (rows.length > 0) self.setPreview(rows.map((timed) => timed.row));
              },
            });
            answered = { data, opStats, missing: 0, missingDetail: null, memoryBytes: budget.bytes };
          } else {
            const job = { progress: self.progress, signal: self.controller.signal, deadlineMs };
            answered = await runDistributed(
              distribution,
              plan,
              spec,
              { limit, offset: request.offset },
              job,
              options.onRows ?? null,
              this.newestShares,
            );
          }
          const { data, opStats } = answered;
          const scanned = self.progress.scanStats?.rowsRead ?? 0;
          const answer: JobAnswer = {
            data,
            meta: { took_ms: Math.round(performance.now() - started), scanned, query_id: self.id, language: 'native' },
          };
          // Keys no node could answer for: the answer says so rather than counting less in silence,
          // and says which nodes and which stretches of which indexes that leaves out.
          if (answered.missing > 0)
            Object.assign(answer.meta, { partial: true, missing_keys: answered.missing, missing: answered.missingDetail });
          const warnings = this.warningsOf(query, request, plan);
          if (warnings.length > 0) answer.meta.warnings = warnings;
          if (request.profile !== null)
            answer.meta.profile = this.profile(request.profile, plan, self, data, opStats, answered.memoryBytes);
          if (cacheable) {
            const indexes = indexMatcher(plan.indexPatterns);
            this.cache.set(cacheKey, answer, () => approximateBytes(data), version, indexes, request.fromMicros, request.toMicros);
          }
          return answer;
        } finally {
          budget.close();
          releaseSlot();
        }
      },
      internal,
    );
    return { job, plan };
  }

  /**
   * Bare words compared with a field that no event in range holds (`where level = error`). A
   * node's catalog knows only its own events, so a cluster, whose events are spread, says nothing.
   */
  private warningsOf(query: Query, request: QueryRequest, plan: QueryPlan): QueryWarning[] {
    const presence = this.fieldPresence;
    if (presence === null || this.distribution !== null) return [];
    const words = bareWordsOf(query, request.text);
    if (words.length === 0) return [];
    const present = presence(
      indexMatcher(plan.indexPatterns),
      request.fromMicros,
      request.toMicros,
      words.map((word) => word.field),
    );
    return words.filter((word) => !present.has(word.field)).map(bareWordWarning);
  }

  private profile(
    level: ProfileLevel,
    plan: QueryPlan,
    job: Job,
    data: QueryResultData,
    opStats: OpStats[],
    memoryBytes: number,
  ): Record<string, unknown> {
    const progress = job.progress.snapshot();
    const profile: Record<string, unknown> = {
      level,
      elapsed_ms: progress.elapsed_ms,
      rows_read: progress.rows_read_so_far,
      rows_returned: data.type === 'events' ? data.events.length : data.rows.length,
      segments_total: progress.segments_total,
      segments_scanned: progress.segments_scanned,
      segments_skipped_index: progress.segments_skipped_index,
      segments_skipped_time: progress.segments_skipped_time,
      segments_skipped_stats: progress.segments_skipped_stats,
      segments_skipped_bloom: progress.segments_skipped_bloom,
      segments_skipped_range: progress.segments_skipped_range,
      buffered_events: progress.buffered_events,
      blocks_cached: job.progress.scanStats?.blocksCached ?? 0,
      memory_bytes: memoryBytes,
      rewrites: plan.rewrites,
    };
    if (level === 'full' || level === 'trace') {
      profile.stages = plan.shardOpLabels.map((label, i) => ({
        stage: label,
        rows_in: opStats?.[i]?.rowsIn ?? 0,
        rows_out: opStats?.[i]?.rowsOut ?? 0,
        time_ms: Math.round((opStats?.[i]?.ms ?? 0) * 1000) / 1000,
      }));
    }
    if (level === 'trace') profile.segments = job.progress.scanStats?.decisions ?? [];
    return profile;
  }
}

function approximateBytes(data: QueryResultData): number {
  return JSON.stringify(data).length * 2;
}
