/** `GET /query/jobs/:id/stream`: server-sent events, `progress` every second, then `complete`, `canceled` or `failed`. */
import type { FastifyInstance } from 'fastify';
import type { QueryRoutesContext } from './context';
import { JOB_PARAMS_SCHEMA, localJob } from './job-lookup';

export function jobEventsRoute(server: FastifyInstance, context: QueryRoutesContext): void {
  server.get<{ Params: { id: string } }>('/query/jobs/:id/stream', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
    const job = await localJob(context, request, reply, true);
    if (job === null) return reply;
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
}
