/**
 * `POST /api/v1/cluster/nodes/{node_id}/remove`: an operator takes a node out of future placement.
 * The master decides it (a new ring epoch without the node, from an instant a few heartbeats ahead); any
 * other node passes the request on to the master and relays its answer. The node stays a member: its
 * old data stays queryable while it runs. `scripts/trawl cluster remove` calls it.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';
import type { ClusterNode } from '../../../cluster/cluster-node';
import { masterActionRoute } from './master';

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
  masterActionRoute(server, app, {
    action: 'remove',
    doing: 'removing',
    aloneCannot: 'take a node out of',
    decide: (cluster, nodeId) => cluster.membership.remove(nodeId),
    answer: removedAnswer,
  });
}
