/**
 * `POST /api/v1/cluster/nodes/{node_id}/forget`: an operator forgets a removed node that is down,
 * giving up the data only it held; it leaves the member list, and its id may join again as a new
 * node. Decided by the master as a remove is; `scripts/trawl cluster forget` calls it.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { ClusterNode } from '../../../cluster/cluster-node';
import { ForgetRefusedError } from '../../../cluster/errors';
import { RelayedAnswer } from '../../../cluster/forward-mark';
import { ApiError } from '../../../core/errors';
import { audited } from '../../audit-request';
import { forwardToMaster, NODE_ID_PARAMS, refusalError } from './master';

/** The answer to a forget: the node, and the newest ring epoch that still lists it. */
function forgottenAnswer(cluster: ClusterNode, nodeId: string): Record<string, unknown> {
  const state = cluster.membership.state();
  const record = state.forgotten.filter((each) => each.id === nodeId).at(-1);
  return { node_id: nodeId, forgotten: true, through_epoch: record?.throughEpoch ?? null, state_version: state.version };
}

export function forgetNodeRoute(server: FastifyInstance, app: App): void {
  server.post<{ Params: { node_id: string } }>(
    '/cluster/nodes/:node_id/forget',
    { schema: { params: NODE_ID_PARAMS } },
    async (request, reply) => {
      const cluster = app.cluster;
      const nodeId = request.params.node_id;
      if (cluster === null) {
        throw new ApiError('VALIDATION_ERROR', 'this node runs alone (cluster.seeds is empty): there is no cluster to forget a node of');
      }
      // Audited by the node that took the request, once: a request passed on to the master is not audited there again.
      const answer = await audited(app, request, 'cluster.node.forget', { target: nodeId }, async () => {
        if (!cluster.membership.master().self)
          return forwardToMaster(cluster, app.settings.cluster.nodeId, nodeId, 'forget', request, reply);
        try {
          await cluster.membership.forget(nodeId);
        } catch (error) {
          if (error instanceof ForgetRefusedError) throw refusalError(error);
          throw error;
        }
        return { data: forgottenAnswer(cluster, nodeId) };
      });
      return answer instanceof RelayedAnswer ? reply : answer;
    },
  );
}
