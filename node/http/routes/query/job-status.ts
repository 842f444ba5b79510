/** `GET /query/jobs/:id`: a job's status, its progress while it runs, its results once done. */
import type { FastifyInstance } from 'fastify';
import type { Job } from '../../../../coordinator/jobs';
import type { QueryRoutesContext } from './context';
import { JOB_PARAMS_SCHEMA, localJob } from './job-lookup';

export function jobStatusRoute(server: FastifyInstance, context: QueryRoutesContext): void {
  server.get<{ Params: { id: string } }>('/query/jobs/:id', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
    const job = await localJob(context, request, reply, false);
    if (job === null) return reply;
    return jobView(job);
  });
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
      return {
        data: { type: 'job', job_id: job.id, status: job.status, error: job.error ?? { code: 'INTERNAL_ERROR', message: 'failed' } },
      };
  }
}
