/** The job a `/query/jobs/:id` request names: here, or asked of the cluster node that runs it. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Job } from '../../../../coordinator/jobs';
import { forwardJobRequest } from '../../../cluster/job-forwarding';
import { notFound } from '../../../core/errors';
import type { QueryRoutesContext } from './context';

export const JOB_PARAMS_SCHEMA = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;

export type JobRequest = FastifyRequest<{ Params: { id: string } }>;

/** This node's job, or null when another node runs it and its answer was relayed (the id names the node). */
export async function localJob(
  { app, service }: QueryRoutesContext,
  request: JobRequest,
  reply: FastifyReply,
  stream: boolean,
): Promise<Job | null> {
  const id = request.params.id;
  if ((await forwardJobRequest(app.cluster, app.settings.cluster.nodeId, id, request, reply, stream)) !== null) return null;
  const job = service.jobs.get(id);
  if (job === undefined) throw notFound(`no query job ${id}`);
  return job;
}
