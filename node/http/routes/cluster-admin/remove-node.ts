/**
 * `POST /api/v1/cluster/nodes/{node_id}/remove`: an operator takes a node out of future placement.
 * The master decides it (a new ring epoch without the node, from an instant a few heartbeats ahead); any
 * other node passes the request on to the master and relays its answer. The node stays a member: its
 * old data stays queryable while it runs. `scripts/trawl cluster remove` calls it.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { ClusterNode } from '../../../cluster/cluster-node';
import { RemoveRefusedError } from '../../../cluster/errors';
import { RelayedAnswer } from '../../../cluster/forward-mark';
import { ApiError } from '../../../core/errors';
import { audited } from '../../audit-request';
import { forwardToMaster, NODE_ID_PARAMS, refusalError } from './master';

/** The answer: the node, and from when new data no longer goes to it. */
function removedAnswer(cluster: ClusterNode, nodeId: string): Record<string, unknown> {
  const state = cluster.membership.state();
  const epoch = state.epochs[state.epochs.length - 1]!;
  return {
    node_id: nodeId,
    removed: true,
    epoch: epoch.epoch,
    effective_from: new Date(Math.floor(epoch.fromMicros / 1000)).toISOString(),
    ring: epoch.members,
    state_version: state.version,
  };
}

export function removeNodeRoute(server: FastifyInstance, app: App): void {
  server.post<{ Params: { node_id: string } }>(
    '/cluster/nodes/:node_id/remove',
    { schema: { params: NODE_ID_PARAMS } },
    async (request, reply) => {
      const cluster = app.cluster;
      const nodeId = request.params.node_id;
      if (cluster === null) {
        throw new ApiError('VALIDATION_ERROR', 'this node runs alone (cluster.seeds is empty): there is no cluster to take a node out of');
      }
      // Audited by the node that took the request, once: a request passed on to the master is not audited there again.
      const answer = await audited(app, request, 'cluster.node.remove', { target: nodeId }, async () => {
        if (!cluster.membership.master().self)
          return forwardToMaster(cluster, app.settings.cluster.nodeId, nodeId, 'remove', request, reply);
        try {
          await cluster.membership.remove(nodeId);
        } catch (error) {
          if (error instanceof RemoveRefusedError) throw refusalError(error);
          throw error;
        }
        return { data: removedAnswer(cluster, nodeId) };
      });
      return answer instanceof RelayedAnswer ? reply : answer;
    },
  );
}
