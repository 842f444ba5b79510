/** Root `GET /health`, unauthenticated: the node is up; degraded while a clustered node catches up or a member is down. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { clusterHealth } from '../../../cluster/cluster-status';

export function healthRoute(server: FastifyInstance, app: App): void {
  server.get('/health', async () => {
    const node = app.cluster;
    if (node === null) return { data: { status: 'healthy', degraded: false, version: app.version } };
    // A clustered node is up but degraded while it catches up or a member not removed is down.
    return { data: { status: 'healthy', ...clusterHealth(node.membership.members(), node.catchUp.catchingUp()), version: app.version } };
  });
}
