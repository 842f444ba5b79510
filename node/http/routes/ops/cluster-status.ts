/** `GET /cluster/status`: the members as this node sees them, or the one node when it runs alone. */
import type { FastifyInstance } from 'fastify';
import path from 'path';
import type { App } from '../../../app/app';
import { isUserIndexName } from '../../../../storage/core/event';
import { membershipStatus } from '../../../cluster/cluster-status';

export function clusterStatusRoute(server: FastifyInstance, app: App): void {
  server.get('/cluster/status', async () => {
    const node = app.cluster;
    if (node !== null) {
      const { dataDir, cluster } = app.settings;
      return {
        data: membershipStatus(node.membership, {
          dataDir,
          replicationFactor: cluster.replicationFactor,
          catchingUp: (id) => !node.catchUp.mayAsk(id),
        }),
      };
    }
    const stats = app.engine.stats();
    const { cluster } = app.settings;
    return {
      data: {
        status: 'healthy',
        mode: 'single-node',
        node_count: 1,
        nodes: [
          {
            id: cluster.nodeId,
            address: `${app.settings.listen.host}:${app.settings.listen.port}`,
            grpc_address: cluster.grpcListen,
            role: cluster.role,
            state: 'alive',
            last_heartbeat: new Date().toISOString(),
          },
        ],
        index_count: stats.indexes.filter(isUserIndexName).length,
        segment_count: stats.segmentCount,
        buffered_size: stats.bufferedBytes,
        buffered_events: stats.user.bufferedEvents,
        data_dir: path.resolve(app.settings.dataDir),
      },
    };
  });
}
