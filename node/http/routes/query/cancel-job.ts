/** `DELETE /query/jobs/:id`: cancels a running job; a job already ended stays as it ended. */
import type { FastifyInstance } from 'fastify';
import type { QueryRoutesContext } from './context';
import { JOB_PARAMS_SCHEMA, localJob } from './job-lookup';

export function cancelJobRoute(server: FastifyInstance, context: QueryRoutesContext): void {
  const { service } = context;
  server.delete<{ Params: { id: string } }>('/query/jobs/:id', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
    const job = await localJob(context, request, reply, false);
    if (job === null) return reply;
    const canceled = service.jobs.cancel(job.id);
    return { data: { job_id: job.id, status: job.status, canceled, completed_at: job.completedAt?.toISOString() ?? null } };
  });
}
