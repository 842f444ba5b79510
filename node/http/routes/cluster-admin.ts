/**
 * `POST /api/v1/cluster/nodes/{node_id}/remove`: an operator takes a node out of future placement.
 * The master decides it (a new ring epoch without the node, from an instant a few heartbeats ahead); any
 * other node passes the request on to the master's HTTP address (HTTPS with `tls.enabled`) and relays its answer. The node
 * stays a member: its old data stays queryable while it runs. `scripts/trawl cluster remove` calls it.
 *
 * `POST /api/v1/cluster/nodes/{node_id}/forget`: an operator forgets a removed node that is down,
 * giving up the data only it held; it leaves the member list, and its id may join again as a new
 * node. Decided by the master the same way; `scripts/trawl cluster forget` calls it.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { App } from '../../app/app';
import type { ClusterNode } from '../../cluster/cluster-node';
import { ForgetRefusedError, RemoveRefusedError } from '../../cluster/errors';
import type { PeerHttpResponse } from '../../cluster/peer-http';
import { ApiError } from '../../core/errors';

const PARAMS = { type: 'object', properties: { node_id: { type: 'string', minLength: 1 } }, required: ['node_id'] } as const;

/** How long the master has to answer a passed-on request (it decides and persists one state version). */
const FORWARD_TIMEOUT_MS = 10_000;

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

/** The answer to a forget: the node, and the newest ring epoch that still lists it. */
function forgottenAnswer(cluster: ClusterNode, nodeId: string): Record<string, unknown> {
  const state = cluster.membership.state();
  const record = state.forgotten.filter((each) => each.id === nodeId).at(-1);
  return { node_id: nodeId, forgotten: true, through_epoch: record?.throughEpoch ?? null, state_version: state.version };
}

function refusal(error: RemoveRefusedError | ForgetRefusedError): ApiError {
  return error.reason === 'unknown-node' ? new ApiError('NOT_FOUND', error.message) : new ApiError('VALIDATION_ERROR', error.message);
}

type Action = 'remove' | 'forget';

/** Passes the request to the master and relays its status and body; 503 naming it when it does not answer. */
async function forwardToMaster(cluster: ClusterNode, nodeId: string, action: Action, reply: FastifyReply): Promise<unknown> {
  const master = cluster.membership.master();
  const member = cluster.membership.state().members.find((candidate) => candidate.id === master.id);
  const name = master.id === null ? master.address : `${master.id} at ${master.address}`;
  const unavailable = (why: string): ApiError =>
    new ApiError('MASTER_UNAVAILABLE', `${action === 'remove' ? 'removing' : 'forgetting'} a node is decided by the cluster's master, ${name}, which ${why}; retry once it is back`);
  if (member === undefined || !master.up) throw unavailable('is not answering');
  let answer: PeerHttpResponse;
  try {
    answer = await cluster.http.request(member, `/api/v1/cluster/nodes/${encodeURIComponent(nodeId)}/${action}`, {
      method: 'POST',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (error) {
    throw unavailable(`did not answer (${(error as Error).message})`);
  }
  const body: unknown = await answer.json().catch(() => null);
  if (body === null) throw unavailable(`answered ${answer.status} without a JSON body`);
  return reply.code(answer.status).send(body);
}

export function clusterAdminRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    server.post<{ Params: { node_id: string } }>('/cluster/nodes/:node_id/remove', { schema: { params: PARAMS } }, async (request, reply) => {
      const cluster = app.cluster;
      const nodeId = request.params.node_id;
      if (cluster === null) {
        throw new ApiError('VALIDATION_ERROR', 'this node runs alone (cluster.seeds is empty): there is no cluster to take a node out of');
      }
      if (!cluster.membership.master().self) return forwardToMaster(cluster, nodeId, 'remove', reply);
      try {
        await cluster.membership.remove(nodeId);
      } catch (error) {
        if (error instanceof RemoveRefusedError) throw refusal(error);
        throw error;
      }
      return { data: removedAnswer(cluster, nodeId) };
    });

    server.post<{ Params: { node_id: string } }>('/cluster/nodes/:node_id/forget', { schema: { params: PARAMS } }, async (request, reply) => {
      const cluster = app.cluster;
      const nodeId = request.params.node_id;
      if (cluster === null) {
        throw new ApiError('VALIDATION_ERROR', 'this node runs alone (cluster.seeds is empty): there is no cluster to forget a node of');
      }
      if (!cluster.membership.master().self) return forwardToMaster(cluster, nodeId, 'forget', reply);
      try {
        await cluster.membership.forget(nodeId);
      } catch (error) {
        if (error instanceof ForgetRefusedError) throw refusal(error);
        throw error;
      }
      return { data: forgottenAnswer(cluster, nodeId) };
    });
  };
}
