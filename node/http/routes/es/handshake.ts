/** `GET /es/`: the handshake an Elasticsearch client makes first, answered as an Elasticsearch 8 node. */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import { ES_CLUSTER_NAME, ES_CLUSTER_UUID } from './es-cluster';

export function handshakeRoute(server: FastifyInstance, app: App): void {
  server.get('/es', async () => ({
    name: app.settings.cluster.nodeId,
    cluster_name: ES_CLUSTER_NAME,
    cluster_uuid: ES_CLUSTER_UUID,
    version: {
      number: '8.0.0',
      build_flavor: 'default',
      build_type: 'trawl',
      lucene_version: '9.0.0',
      minimum_wire_compatibility_version: '7.17.0',
      minimum_index_compatibility_version: '7.0.0',
    },
    tagline: 'You Know, for Search',
  }));
}
