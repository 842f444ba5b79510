/**
 * `GET /tail` (docs/api.md "Live tail"): server-sent events. Catchup first: the newest `count`
 * events of [`from`, now) that pass `q`, oldest first, then `catchup_done`; then live: every event
 * acknowledged from then on (in a cluster, through any member) that passes `q`, and a heartbeat
 * every `tail.heartbeat_interval`. The session itself is node/tail/tail-session.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Job } from '../../../coordinator/jobs';
import {
  errorInTailQuery,
  liveTailPlan,
  tailQueryText,
  unsupportedTailStage,
  unsupportedTailStageMessage,
} from '../../../coordinator/tail';
import type { Row } from '../../../query/exec/rows';
import type { Query } from '../../../query/stages';
import { QueryError } from '../../../query/syntax';
import type { App } from '../../app/app';
import { checkQueryLength, invalidQuery, validationError } from '../../core/errors';
import { parseTimeBound } from '../../core/time-bound';
import { SseStream } from '../../tail/sse-stream';
import type { TailSession } from '../../tail/tail-session';
import { launchQuery } from './query/launch';

export const DEFAULT_TAIL_COUNT = 100;
export const MAX_TAIL_COUNT = 10_000;
export const DEFAULT_TAIL_FROM = '-1h';

interface TailParams {
  q?: string;
  count?: number;
  from?: string;
}

const TAIL_QUERY_SCHEMA = {
  type: 'object',
  properties: {
    q: { type: 'string' },
    count: { type: 'integer', minimum: 0, maximum: MAX_TAIL_COUNT, description: `must be an integer from 0 to ${MAX_TAIL_COUNT}` },
    from: { type: 'string' },
  },
  additionalProperties: false,
} as const;

export function tailRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    server.drain.onDrain(() => app.tail.closeAll());

    server.get<{ Querystring: TailParams }>('/tail', { schema: { querystring: TAIL_QUERY_SCHEMA } }, async (request, reply) => {
      const params = request.query;
      if (params.q === undefined || params.q.trim() === '') {
        throw validationError('q is required: the query whose events to follow (for example `from web | where status >= 500`)');
      }
      const nowMs = Date.now();
      const fromMs = parseTimeBound('from', params.from ?? DEFAULT_TAIL_FROM, nowMs);
      if (fromMs > nowMs) throw validationError('from must not be in the future: the catchup replays events from it until now');
      const filter = tailQueryText(params.q);
      checkQueryLength(filter.text, app.settings.query.maxQueryLength);
      let query: Query;
      try {
        query = app.queries.parse(filter.text, {});
      } catch (error) {
        if (error instanceof QueryError) throw invalidQuery(errorInTailQuery(error, filter));
        throw error;
      }
      const stage = unsupportedTailStage(query);
      // The one error of the API whose body is a plain string (no code), as clients of live tail expect.
      if (stage !== null) return reply.code(422).send({ error: unsupportedTailStageMessage(stage) });

      const nowMicros = nowMs * 1000;
      const { tail } = app.settings;
      const session = app.tail.open(tail.maxSessions, {
        query: { text: filter.text, plan: liveTailPlan(query, nowMicros), nowMicros },
        heartbeatIntervalMs: () => app.settings.tail.heartbeatIntervalMs,
        maxSessionDurationMs: tail.maxSessionDurationMs,
      });
      let job: Job | null = null;
      // A client that leaves at any point, even before the stream opens, frees its session.
      const left = (): void => {
        session.end();
        if (job?.status === 'running') app.jobs.cancel(job.id, 'the live tail client left');
      };
      reply.raw.once('close', left);
      try {
        // Every source listens before the catchup's cut: what is acknowledged later arrives live.
        await session.ready();
        const count = params.count ?? DEFAULT_TAIL_COUNT;
        if (count > 0) {
          const catchup = { text: filter.text, variables: {}, fromMicros: fromMs * 1000, toMicros: Date.now() * 1000, nowMicros };
          job = launchQuery(app.queries, { ...catchup, limit: count, offset: 0, profile: null }, {}).job;
        }
      } catch (error) {
        reply.raw.off('close', left);
        session.end();
        throw error;
      }
      reply.hijack();
      // The client left while the sources got ready: nothing to write to.
      if (session.ended) return left();
      const stream = new SseStream(reply.raw);
      stream.open();
      session.attach(stream);
      try {
        await runCatchup(session, job);
      } catch (error) {
        // The response is the stream now: a failure ends it with an error event, never a second answer.
        app.logger.error(`live tail catchup failed: ${(error as Error).stack ?? String(error)}`);
        session.fail('INTERNAL_ERROR', 'the catchup failed; see the server log');
      }
    });
  };
}

/** Sends the catchup's answer (oldest first), or ends the session with an `error` event when it failed. */
async function runCatchup(session: TailSession, job: Job | null): Promise<void> {
  if (job === null) return session.catchupDone([]);
  await job.finished;
  if (session.ended) return;
  const answer = job.answer?.data;
  if (job.status !== 'done' || answer === undefined || answer.type !== 'events') {
    const error = job.error ?? { code: 'INTERNAL_ERROR', message: 'the catchup query failed' };
    return session.fail(error.code, error.message);
  }
  session.catchupDone([...(answer.events as Row[])].reverse());
}
