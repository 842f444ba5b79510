/** `GET /query/jobs`: the jobs this node runs, or in a cluster every node's. */
import type { FastifyInstance } from 'fastify';
import type { JobStatus } from '../../../../coordinator/jobs';
import { clusterJobList, FORWARDED_HEADER } from '../../../cluster/job-forwarding';
import type { QueryRoutesContext } from './context';

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

export function listJobsRoute(server: FastifyInstance, { app, service }: QueryRoutesContext): void {
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
    const all = await clusterJobList(cluster, app.settings.cluster.nodeId, jobs, search, request.headers.authorization);
    return all.missingNodes.length === 0
      ? { data: { jobs: all.jobs } }
      : { data: { jobs: all.jobs }, meta: { partial: true, missing_nodes: all.missingNodes } };
  });
}
