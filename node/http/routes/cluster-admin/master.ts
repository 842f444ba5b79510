/**
 * What both cluster-admin endpoints share: the master decides them; any other node passes the request
 * on to the master's HTTP address (HTTPS with `tls.enabled`) and relays its answer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../app/app';
import type { ClusterNode } from '../../../cluster/cluster-node';
import { ForgetRefusedError, RemoveRefusedError } from '../../../cluster/errors';
import type { PeerHttpResponse } from '../../../cluster/peer-http';
import { RelayedAnswer } from '../../../cluster/forward-mark';
import { forwardedHeaders } from '../../../cluster/job-forwarding';
import { ApiError } from '../../../core/errors';
import { audited } from '../../audit-request';

const NODE_ID_PARAMS = { type: 'object', properties: { node_id: { type: 'string', minLength: 1 } }, required: ['node_id'] } as const;

/** The master's refusal as the answer: NOT_FOUND for a node it does not know, else VALIDATION_ERROR. */
function refusalError(error: RemoveRefusedError | ForgetRefusedError): ApiError {
  return error.reason === 'unknown-node' ? new ApiError('NOT_FOUND', error.message) : new ApiError('VALIDATION_ERROR', error.message);
}

/** How long the master has to answer a passed-on request (it decides and persists one state version). */
const FORWARD_TIMEOUT_MS = 10_000;

export type Action = 'remove' | 'forget';

/** Passes the request to the master and relays its status and body, returned; 503 naming it when it does not answer. */
async function forwardToMaster(
  cluster: ClusterNode,
  selfId: string,
  nodeId: string,
  spec: MasterAction,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<RelayedAnswer> {
  const master = cluster.membership.master();
  const member = cluster.membership.state().members.find((candidate) => candidate.id === master.id);
  const name = master.id === null ? master.address : `${master.id} at ${master.address}`;
  const unavailable = (why: string): ApiError =>
    new ApiError(
      'MASTER_UNAVAILABLE',
      `${spec.doing} a node is decided by the cluster's master, ${name}, which ${why}; retry once it is back`,
    );
  if (member === undefined || !master.up) throw unavailable('is not answering');
  let answer: PeerHttpResponse;
  try {
    answer = await cluster.http.request(member, `/api/v1/cluster/nodes/${encodeURIComponent(nodeId)}/${spec.action}`, {
      method: 'POST',
      // Marked forwarded, so that the master does not audit it again; the caller's credentials, which the master checks again.
      headers: forwardedHeaders(selfId, request.headers.authorization),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (error) {
    throw unavailable(`did not answer (${(error as Error).message})`);
  }
  const body: unknown = await answer.json().catch(() => null);
  if (body === null) throw unavailable(`answered ${answer.status} without a JSON body`);
  await reply.code(answer.status).send(body);
  return RelayedAnswer.of(answer.status, body);
}

/** One cluster-admin action on a node: what the master does, and what it answers. */
export interface MasterAction {
  action: Action;
  /** The action as the master-unavailable refusal names it: `removing`. */
  doing: string;
  /** What a node alone has no cluster to do: `take a node out of`. */
  aloneCannot: string;
  /** Decides the action (on the master); throws RemoveRefusedError or ForgetRefusedError when it may not. */
  decide: (cluster: ClusterNode, nodeId: string) => Promise<unknown>;
  /** The answer's data once decided. */
  answer: (cluster: ClusterNode, nodeId: string) => Record<string, unknown>;
}

/** `POST /cluster/nodes/:node_id/<action>`: decided on the master, passed on to it from any other node, audited once. */
export function masterActionRoute(server: FastifyInstance, app: App, spec: MasterAction): void {
  server.post<{ Params: { node_id: string } }>(
    `/cluster/nodes/:node_id/${spec.action}`,
    { schema: { params: NODE_ID_PARAMS } },
    async (request, reply) => {
      const cluster = app.cluster;
      const nodeId = request.params.node_id;
      if (cluster === null) {
        throw new ApiError('VALIDATION_ERROR', `this node runs alone (cluster.seeds is empty): there is no cluster to ${spec.aloneCannot}`);
      }
      // Audited by the node that took the request, once: a request passed on to the master is not audited there again.
      const answer = await audited(app, request, `cluster.node.${spec.action}`, { target: nodeId }, async () => {
        if (!cluster.membership.master().self) return forwardToMaster(cluster, app.settings.cluster.nodeId, nodeId, spec, request, reply);
        try {
          await spec.decide(cluster, nodeId);
        } catch (error) {
          if (error instanceof RemoveRefusedError || error instanceof ForgetRefusedError) throw refusalError(error);
          throw error;
        }
        return { data: spec.answer(cluster, nodeId) };
      });
      return answer instanceof RelayedAnswer ? reply : answer;
    },
  );
}
