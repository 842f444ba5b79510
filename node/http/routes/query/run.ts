/** `POST|GET /query`: the sync window, async (`wait: 0`) and hybrid (`wait: N`) answers. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Job } from '../../../../coordinator/jobs';
import { jobFailure } from '../../../core/errors';
import { parseQueryRequest, QUERY_BODY_SCHEMA, QUERY_STRING_SCHEMA, type ParsedQueryRequest, type QueryParams } from '../../query-request';
import { JSON_BODY, type QueryRoutesContext } from './context';
import { launchQuery } from './launch';

function handle(job: Job): { data: Record<string, unknown>; meta: Record<string, unknown> } {
  return { data: { type: 'job', job_id: job.id, status: 'running' }, meta: { query_id: job.id } };
}

/** Waits per the request's mode, then answers 200 with the result, 202 with a handle, or the error. */
async function answer({ app, service, awaited }: QueryRoutesContext, request: ParsedQueryRequest, reply: FastifyReply) {
  const job = launchQuery(service, request, { unlimited: false }).job;
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
}

export function runQueryRoutes(server: FastifyInstance, context: QueryRoutesContext): void {
  const { app } = context;
  server.post<{ Body: QueryParams }>('/query', { schema: { body: QUERY_BODY_SCHEMA }, config: JSON_BODY }, async (request, reply) => {
    return answer(context, parseQueryRequest(request.body, app.settings, Date.now()), reply);
  });

  server.get<{ Querystring: QueryParams }>('/query', { schema: { querystring: QUERY_STRING_SCHEMA } }, async (request, reply) => {
    return answer(context, parseQueryRequest(request.query, app.settings, Date.now()), reply);
  });
}
