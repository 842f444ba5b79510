/** `GET /es/_license`: a basic licence, active: Beats and Logstash refuse to start against a cluster without one. */
import type { FastifyInstance } from 'fastify';
import { ES_CLUSTER_NAME } from './es-cluster';

function license(): Record<string, unknown> {
  return {
    license: {
      status: 'active',
      uid: '00000000-0000-0000-0000-000000000000',
      type: 'basic',
      issue_date: '1970-01-01T00:00:00.000Z',
      issue_date_in_millis: 0,
      max_nodes: 1000,
      max_resource_units: null,
      issued_to: ES_CLUSTER_NAME,
      issuer: 'elasticsearch',
      start_date_in_millis: -1,
    },
  };
}

export function licenseRoute(server: FastifyInstance): void {
  server.get('/es/_license', async () => license());
}
