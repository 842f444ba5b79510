/**
 * `POST /api/v1/cluster/nodes/{node_id}/forget`: an operator forgets a removed node that is down,
 * giving up the data only it held; it leaves the member list, and its id may join again as a new
 * node. Decided by the master as a remove is; `scripts/trawl cluster forget` calls it.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { ClusterNode } from '../../../cluster/cluster-node';
import { masterActionRoute } from './master';

/** The answer to a forget: the node, and the newest ring epoch that still lists it. */
function forgottenAnswer(cluster: ClusterNode, nodeId: string): Record<string, unknown> {
  const state = cluster.membership.state();
  const record = state.forgotten.filter((each) => each.id === nodeId).at(-1);
  return { node_id: nodeId, forgotten: true, through_epoch: record?.throughEpoch ?? null, state_version: state.version };
}

export function forgetNodeRoute(server: FastifyInstance, app: App): void {
  masterActionRoute(server, app, {
    action: 'forget',
    doing: 'forgetting',
    aloneCannot: 'forget a node of',
    decide: (cluster, nodeId) => cluster.membership.forget(nodeId),
    answer: forgottenAnswer,
  });
}
