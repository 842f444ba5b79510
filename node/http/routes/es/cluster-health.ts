/** `GET /es/_cluster/health` (and `/{index}`): always green; the wait_for_* conditions hold at once. */
import type { FastifyInstance } from 'fastify';
import { ES_CLUSTER_NAME } from './es-cluster';

function clusterHealth(): Record<string, unknown> {
  return {
    cluster_name: ES_CLUSTER_NAME,
    status: 'green',
    timed_out: false,
    number_of_nodes: 1,
    number_of_data_nodes: 1,
    active_primary_shards: 0,
    active_shards: 0,
    relocating_shards: 0,
    initializing_shards: 0,
    unassigned_shards: 0,
    unassigned_primary_shards: 0,
    delayed_unassigned_shards: 0,
    number_of_pending_tasks: 0,
    number_of_in_flight_fetch: 0,
    task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: 100.0,
  };
}

export function clusterHealthRoutes(server: FastifyInstance): void {
  server.get('/es/_cluster/health', clusterHealth);
  server.get('/es/_cluster/health/:index', clusterHealth);
}
