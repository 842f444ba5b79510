/**
 * Query jobs: every query runs as a job (a synchronous answer is a job waited for). Jobs carry
 * live progress, can be canceled, end in `done`, `error` or `canceled`, and are removed
 * `query.job_ttl` after they finish. Ids carry the node id so any node can forward a lookup.
 */
import crypto from 'crypto';
import { EventEmitter } from 'events';
import { QueryLimitError } from '../query/exec/limits';
import { QueryProgress } from '../query/exec/progress';
import type { QueryResultData } from '../query/exec/result';
import type { QueryWarning } from './bare-words';
import type { MissingDetail } from './missing-ranges';
import type { Row } from '../query/exec/rows';

export type JobStatus = 'running' | 'done' | 'error' | 'canceled';

export interface AnswerMeta {
  took_ms: number;
  scanned: number;
  query_id: string;
  language: 'native';
  profile?: Record<string, unknown>;
  cached?: boolean;
  /** Advice about a query that ran but probably did not mean what it says (bare-words.ts). */
  warnings?: QueryWarning[];
  /**
   * In a cluster: some partition keys had no node to answer for them (`missing_keys` of them);
   * `missing` names their owners and the time ranges of the indexes they leave out.
   */
  partial?: true;
  missing_keys?: number;
  missing?: MissingDetail;
}

export interface JobAnswer {
  data: QueryResultData;
  meta: AnswerMeta;
}

export interface JobError {
  code: string;
  message: string;
  /** Extra members for INVALID_QUERY (parse_code, line, column, suggestion). */
  details?: Record<string, unknown>;
}

/** Events: `progress` (throttled by the reader), `preview`, `end` (the job finished). */
export class Job extends EventEmitter {
  status: JobStatus = 'running';
  readonly createdAt = new Date();
  completedAt: Date | null = null;
  readonly progress = new QueryProgress();
  readonly controller = new AbortController();
  answer: JobAnswer | null = null;
  error: JobError | null = null;
  preview: Row[] | null = null;
  previewVersion = 0;
  /** Resolves when the job leaves `running`. */
  readonly finished: Promise<void>;
  private resolveFinished!: () => void;

  constructor(
    readonly id: string,
    readonly query: string,
  ) {
    super();
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.setMaxListeners(0);
  }

  complete(answer: JobAnswer): void {
    if (this.status !== 'running') return;
    this.status = 'done';
    this.answer = answer;
    this.end();
  }

  fail(error: JobError): void {
    if (this.status !== 'running') return;
    this.status = error.code === 'QUERY_CANCELED' ? 'canceled' : 'error';
    this.error = error;
    this.end();
  }

  setPreview(rows: Row[]): void {
    this.preview = rows;
    this.previewVersion++;
  }

  private end(): void {
    this.completedAt = new Date();
    this.progress.phase = this.status;
    this.resolveFinished();
    this.emit('end');
  }
}

/** A node id as job ids carry it: characters other than letters, digits and `-` become `-`. */
export function jobNodeTag(nodeId: string): string {
  return nodeId.replace(/[^A-Za-z0-9-]/g, '-');
}

/** The node tag a job id carries (`qry_<tag>_<12 random characters>`), or null for another shape. */
export function nodeTagOfJob(id: string): string | null {
  const match = /^qry_([A-Za-z0-9-]+)_[A-Za-z0-9_-]{12}$/.exec(id);
  return match === null ? null : match[1]!;
}

export class JobManager {
  private readonly jobs = new Map<string, Job>();
  /** Running jobs of the server's own reads (the audit log): never listed nor found by id. */
  private readonly unlisted = new Set<Job>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly nodeId: string,
    private readonly ttlMs: () => number,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 1000);
    this.sweeper.unref();
  }

  get running(): number {
    let count = this.unlisted.size;
    for (const job of this.jobs.values()) if (job.status === 'running') count++;
    return count;
  }

  /**
   * Creates a job and starts `run`; a runtime limit aborts it with QUERY_TIMEOUT. An `unlisted`
   * job answers only its caller: `GET /query/jobs` does not show it and its id finds nothing, so
   * a key that may query cannot read what an endpoint of a higher privilege asked.
   */
  start(query: string, runtimeMs: number, run: (job: Job) => Promise<JobAnswer>, unlisted = false): Job {
    const job = new Job(`qry_${jobNodeTag(this.nodeId)}_${crypto.randomBytes(9).toString('base64url')}`, query);
    if (unlisted) {
      this.unlisted.add(job);
      void job.finished.then(() => this.unlisted.delete(job));
    } else {
      this.jobs.set(job.id, job);
    }
    const timer = setTimeout(() => {
      job.controller.abort(new QueryLimitError('QUERY_TIMEOUT', `the query ran longer than query.max_query_runtime (${runtimeMs} ms)`));
    }, runtimeMs);
    timer.unref();
    run(job)
      .then((answer) => job.complete(answer))
      .catch((error: unknown) => job.fail(toJobError(error)))
      .finally(() => clearTimeout(timer));
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  list(): Job[] {
    return [...this.jobs.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }

  /** Cancels a running job; true only when this call stopped it. */
  cancel(id: string, reason = 'canceled by user'): boolean {
    const job = this.jobs.get(id);
    if (job === undefined || job.status !== 'running') return false;
    job.controller.abort(new QueryLimitError('QUERY_CANCELED', reason));
    job.fail({ code: 'QUERY_CANCELED', message: reason });
    return true;
  }

  /** Removes finished jobs older than the TTL. */
  sweep(now = Date.now()): void {
    const ttl = this.ttlMs();
    for (const [id, job] of this.jobs) {
      if (job.completedAt !== null && now - job.completedAt.getTime() >= ttl) this.jobs.delete(id);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const job of this.jobs.values()) if (job.status === 'running') this.cancel(job.id, 'the server is shutting down');
    for (const job of this.unlisted) {
      job.controller.abort(new QueryLimitError('QUERY_CANCELED', 'the server is shutting down'));
      job.fail({ code: 'QUERY_CANCELED', message: 'the server is shutting down' });
    }
  }
}

/** Known failures keep their code; anything else is an internal error. */
export function toJobError(error: unknown): JobError {
  if (error instanceof QueryLimitError) return { code: error.code, message: error.message };
  const coded = error as { code?: unknown };
  if (error instanceof Error && typeof coded.code === 'string' && /^[A-Z_]+$/.test(coded.code)) {
    return { code: coded.code, message: error.message };
  }
  return { code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) };
}
