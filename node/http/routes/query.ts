/**
 * Query endpoints: `POST|GET /query` (sync window, async `wait: 0`, hybrid `wait: N`),
 * `POST /query/stream` (NDJSON), `GET /query/explain`, the job endpoints with their SSE stream,
 * and the result cache's `GET /cache/stats` / `DELETE /cache`.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Job, JobError, JobStatus } from '../../../coordinator/jobs';
import { TooManyQueriesError, type QueryService } from '../../../coordinator/query-service';
import { eventFormatter } from '../../../query/exec/result';
import type { Row, TimedRow } from '../../../query/exec/rows';
import { QueryError } from '../../../query/syntax';
import type { App } from '../../app/app';
import { clusterJobList, FORWARDED_HEADER, forwardJobRequest } from '../../cluster/job-forwarding';
import { ApiError, invalidQuery, isErrorCode, notFound, queryErrorFields } from '../../core/errors';
import {
  parseQueryRequest,
  QUERY_BODY_SCHEMA,
  QUERY_STRING_SCHEMA,
  STREAM_BODY_SCHEMA,
  type ParsedQueryRequest,
  type QueryParams,
} from '../query-request';
import { parseTimeBound } from '../../core/time-bound';


/** A failed job as the answer to the request that waited for it: its code's status, or 500 for an unknown code. */
function jobFailure(error: JobError): ApiError {
  if (!isErrorCode(error.code)) return new ApiError('INTERNAL_ERROR', error.message);
  return new ApiError(error.code, error.message, error.details ?? {});
}

const STATUS_ALIASES: Record<string, JobStatus> = {
  running: 'running',
  done: 'done',
  error: 'error',
  canceled: 'canceled',
  complete: 'done',
  completed: 'done',
  failed: 'error',
  cancelled: 'canceled',
};

const JOBS_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    status: {
      type: 'string',
      enum: ['', ...Object.keys(STATUS_ALIASES)],
      description: 'must be running, done, error or canceled, or an alias: complete, failed, cancelled',
    },
  },
  additionalProperties: false,
} as const;

const JOB_PARAMS_SCHEMA = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;

const EXPLAIN_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    q: { type: 'string' },
    query: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    analyze: { type: 'string' },
    language: { type: 'string' },
  },
  additionalProperties: false,
} as const;

/** JSON bodies are parsed by the body reader and validated against the route's schema. */
const JSON_BODY = { bodyFormat: 'json', bodyExample: '{"q": "from main | head 10"}' } as const;

function handle(job: Job): { data: Record<string, unknown>; meta: Record<string, unknown> } {
  return { data: { type: 'job', job_id: job.id, status: 'running' }, meta: { query_id: job.id } };
}

export function queryRoutes(app: App, service: QueryService): FastifyPluginAsync {
  const start = (request: ParsedQueryRequest, unlimited = false): Job => {
    try {
      return service.start(request, { unlimited }).job;
    } catch (error) {
      if (error instanceof QueryError) throw invalidQuery(error);
      if (error instanceof TooManyQueriesError) throw new ApiError('TOO_MANY_REQUESTS', error.message);
      throw error;
    }
  };

  /** In a cluster, a job another node runs is asked of that node (its id names it). */
  const forwarded = (id: string, request: FastifyRequest, reply: FastifyReply, stream: boolean): Promise<boolean> =>
    forwardJobRequest(app.cluster, app.settings.cluster.nodeId, id, request, reply, stream);

  /** Jobs a request is waiting for (sync window, hybrid): a shutdown lets them finish. */
  const awaited = new Set<Job>();

  /** Waits per the request's mode, then answers 200 with the result, 202 with a handle, or the error. */
  const answer = async (request: ParsedQueryRequest, reply: FastifyReply) => {
    const job = start(request);
    if (request.wait !== 0) {
      const waitMs = request.wait === null ? app.settings.query.syncTimeoutMs : request.wait * 1000;
      let timer: NodeJS.Timeout | undefined;
      awaited.add(job);
      await Promise.race([job.finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      awaited.delete(job);
      clearTimeout(timer);
    }
    if (job.status === 'running') return reply.status(202).send(handle(job));
    if (job.status === 'done' && job.answer !== null) return reply.send({ data: job.answer.data, meta: job.answer.meta });
    throw jobFailure(job.error ?? { code: 'INTERNAL_ERROR', message: 'the query failed' });
  };

  return async (server) => {
    // On shutdown, jobs nobody waits for end at once: an NDJSON export ends with its `__error` line,
    // an SSE stream with `canceled`, and a detached job would be canceled at exit anyway.
    server.drain.onDrain(() => {
      for (const job of service.jobs.list()) {
        if (job.status === 'running' && !awaited.has(job)) service.jobs.cancel(job.id, 'the server is shutting down');
      }
    });

    server.post<{ Body: QueryParams }>('/query', { schema: { body: QUERY_BODY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
      return answer(parseQueryRequest(request.body, app.settings, Date.now()), reply);
    });

    server.get<{ Querystring: QueryParams }>('/query', { schema: { querystring: QUERY_STRING_SCHEMA } }, async (request, reply) => {
      return answer(parseQueryRequest(request.query, app.settings, Date.now()), reply);
    });

    server.post<{ Body: QueryParams }>('/query/stream', { schema: { body: STREAM_BODY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
      const parsed = parseQueryRequest(request.body, app.settings, Date.now());
      const raw = reply.raw;
      const started = performance.now();
      let written = 0;
      // A client that leaves while a write waits for 'drain' ends the wait too: the scan must not hang on it.
      const write = (line: unknown): Promise<void> =>
        new Promise((resolve) => {
          if (raw.destroyed || raw.writableEnded || raw.write(`${JSON.stringify(line)}\n`)) return resolve();
          const done = (): void => {
            raw.off('drain', done);
            raw.off('close', done);
            resolve();
          };
          raw.once('drain', done);
          raw.once('close', done);
        });
      let format: (row: Row) => Row = (row) => row;
      // Once the job has ended, the last line (the meta or the one error) is the stream's last: a
      // row that arrives later is not written.
      let ended = false;
      // Events go out as the scan finds them, newest first (query/exec/stream-order.ts).
      const onRows = async (rows: TimedRow[]): Promise<void> => {
        for (const { row } of rows) {
          if (ended || raw.destroyed) return;
          await write(format(row));
          written++;
        }
      };
      let job: Job;
      try {
        const launched = service.start(parsed, { unlimited: true, onRows });
        job = launched.job;
        format = eventFormatter(launched.plan);
      } catch (error) {
        if (error instanceof QueryError) throw invalidQuery(error);
        if (error instanceof TooManyQueriesError) throw new ApiError('TOO_MANY_REQUESTS', error.message);
        throw error;
      }
      reply.hijack();
      raw.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const onClose = (): void => {
        if (job.status === 'running') service.jobs.cancel(job.id, 'the client disconnected');
      };
      raw.on('close', onClose);
      await job.finished;
      ended = true;
      try {
        if (job.status !== 'done' || job.answer === null) {
          await write({ __error: job.error ?? { code: 'INTERNAL_ERROR', message: 'the query failed' } });
        } else {
          const data = job.answer.data;
          // Results that needed all input (aggregates, sort, ...) arrive whole at the end.
          if (data.type === 'events') {
            for (const event of data.events) {
              await write(event);
              written++;
            }
          } else {
            for (const row of data.rows) {
              await write(Object.fromEntries(data.columns.map((column, i) => [column, row[i]])));
              written++;
            }
          }
          const { scanned, partial, missing_keys, missing } = job.answer.meta;
          const meta: Record<string, unknown> = { total: written, scanned, took_ms: Math.round(performance.now() - started) };
          if (partial === true) Object.assign(meta, { partial, missing_keys, missing });
          await write({ __meta: meta });
        }
      } finally {
        raw.off('close', onClose);
        raw.end();
      }
    });

    server.get<{ Querystring: Record<string, string | undefined> }>('/query/explain', { schema: { querystring: EXPLAIN_QUERY_SCHEMA } }, async (request) => {
      const q = request.query.q ?? request.query.query;
      const language = request.query.language;
      if (language !== undefined && language !== '' && language !== 'native') {
        return { data: { is_valid: false, errors: [{ message: `language "${language}" is not supported: only native` }] }, meta: { language: 'native' } };
      }
      if (q === undefined || q.trim() === '') {
        return { data: { is_valid: false, errors: [{ message: 'q (or query) is required: the query text' }] }, meta: { language: 'native' } };
      }
      const now = Date.now();
      let fromMicros = 0;
      let toMicros = now * 1000;
      try {
        if (request.query.from !== undefined) fromMicros = parseTimeBound('from', request.query.from, now) * 1000;
        if (request.query.to !== undefined) toMicros = parseTimeBound('to', request.query.to, now) * 1000;
      } catch (error) {
        return { data: { is_valid: false, errors: [{ message: (error as Error).message }] }, meta: { language: 'native' } };
      }
      const result = service.explain(q, {}, fromMicros, toMicros);
      if (!result.ok) {
        return {
          data: {
            is_valid: false,
            errors: result.errors.map((error) => ({ message: error.message, ...queryErrorFields(error) })),
          },
          meta: { language: 'native' },
        };
      }
      return { data: { is_valid: true, native_plan: result.plan, errors: [] }, meta: { language: 'native' } };
    });

    server.get<{ Querystring: { status?: string } }>('/query/jobs', { schema: { querystring: JOBS_QUERY_SCHEMA } }, async (request) => {
      const status: JobStatus | null = STATUS_ALIASES[request.query.status ?? ''] ?? null;
      const jobs = service.jobs
        .list()
        .filter((job) => status === null || job.status === status)
        .map((job) => ({ job_id: job.id, query: job.query, status: job.status, created_at: job.createdAt.toISOString() }));
      const cluster = app.cluster;
      if (cluster === null || request.headers[FORWARDED_HEADER] !== undefined) return { data: { jobs } };
      // In a cluster: every node's jobs; a node that does not answer makes the list partial.
      const search = request.query.status === undefined ? '' : `?status=${encodeURIComponent(request.query.status)}`;
      const all = await clusterJobList(cluster, app.settings.cluster.nodeId, jobs, search);
      return all.missingNodes.length === 0 ? { data: { jobs: all.jobs } } : { data: { jobs: all.jobs }, meta: { partial: true, missing_nodes: all.missingNodes } };
    });

    server.get<{ Params: { id: string } }>('/query/jobs/:id', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
      if (await forwarded(request.params.id, request, reply, false)) return reply;
      const job = service.jobs.get(request.params.id);
      if (job === undefined) throw notFound(`no query job ${request.params.id}`);
      return jobView(job);
    });

    server.delete<{ Params: { id: string } }>('/query/jobs/:id', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
      if (await forwarded(request.params.id, request, reply, false)) return reply;
      const job = service.jobs.get(request.params.id);
      if (job === undefined) throw notFound(`no query job ${request.params.id}`);
      const canceled = service.jobs.cancel(job.id);
      return { data: { job_id: job.id, status: job.status, canceled, completed_at: job.completedAt?.toISOString() ?? null } };
    });

    server.get<{ Params: { id: string } }>('/query/jobs/:id/stream', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
      if (await forwarded(request.params.id, request, reply, true)) return reply;
      const job = service.jobs.get(request.params.id);
      if (job === undefined) throw notFound(`no query job ${request.params.id}`);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      const send = (event: string, data: unknown): void => {
        raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const progress = (): void => {
        const data: Record<string, unknown> = { job_id: job.id, status: job.status, ...job.progress.snapshot() };
        if (job.preview !== null && job.preview.length > 0) {
          data.preview = job.preview;
          data.preview_version = job.previewVersion;
        }
        send('progress', data);
      };
      const finish = (): void => {
        clearInterval(ticker);
        if (job.status === 'done' && job.answer !== null) send('complete', { data: job.answer.data, meta: job.answer.meta });
        else if (job.status === 'canceled') send('canceled', { job_id: job.id, ...job.progress.snapshot() });
        else send('failed', job.error ?? { code: 'INTERNAL_ERROR', message: 'the query failed' });
        raw.end();
      };
      const ticker = setInterval(progress, 1000);
      raw.on('close', () => clearInterval(ticker));
      if (job.status !== 'running') finish();
      else {
        progress();
        job.once('end', finish);
      }
    });

    server.get('/cache/stats', async () => ({ data: service.cache.stats() }));
    server.delete('/cache', async () => ({ data: { cleared: service.cache.clear() } }));
  };
}

function jobView(job: Job): { data: Record<string, unknown>; meta?: Record<string, unknown> } {
  switch (job.status) {
    case 'running':
      return { data: { type: 'job', job_id: job.id, status: 'running', query: job.query, progress: job.progress.snapshot() } };
    case 'done': {
      const answer = job.answer;
      return {
        data: {
          type: 'job',
          job_id: job.id,
          status: 'done',
          query: job.query,
          created_at: job.createdAt.toISOString(),
          completed_at: job.completedAt?.toISOString() ?? null,
          results: answer?.data ?? null,
        },
        meta: {
          took_ms: answer?.meta.took_ms ?? 0,
          scanned: answer?.meta.scanned ?? 0,
          query_id: job.id,
          ...(answer?.meta.partial === true ? { partial: true, missing_keys: answer.meta.missing_keys, missing: answer.meta.missing } : {}),
        },
      };
    }
    default:
      return { data: { type: 'job', job_id: job.id, status: job.status, error: job.error ?? { code: 'INTERNAL_ERROR', message: 'failed' } } };
  }
}
