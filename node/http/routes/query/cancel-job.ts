/**
 * `DELETE /query/jobs/:id`: cancels a running job; a job already ended stays as it ended. Audited
 * as `query.job.cancel` by the node that took the request, also when another node runs the job.
 */
import type { FastifyInstance } from 'fastify';
import { forwardJobRequest } from '../../../cluster/job-forwarding';
import { RelayedAnswer } from '../../../cluster/forward-mark';
import { notFound } from '../../../core/errors';
import { audited } from '../../audit-request';
import type { QueryRoutesContext } from './context';
import { JOB_PARAMS_SCHEMA } from './job-lookup';

export function cancelJobRoute(server: FastifyInstance, { app, service }: QueryRoutesContext): void {
  server.delete<{ Params: { id: string } }>('/query/jobs/:id', { schema: { params: JOB_PARAMS_SCHEMA } }, async (request, reply) => {
    const id = request.params.id;
    const answer = await audited(app, request, 'query.job.cancel', { target: id }, async () => {
      const relayed = await forwardJobRequest(app.cluster, app.settings.cluster.nodeId, id, request, reply, false);
      if (relayed !== null) return relayed;
      const job = service.jobs.get(id);
      if (job === undefined) throw notFound(`no query job ${id}`);
      const canceled = service.jobs.cancel(job.id);
      return { data: { job_id: job.id, status: job.status, canceled, completed_at: job.completedAt?.toISOString() ?? null } };
    });
    return answer instanceof RelayedAnswer ? reply : answer;
  });
}
