/**
 * Query jobs live on the node that runs them, and their ids carry that node's id
 * (coordinator/jobs.ts). In a cluster any node answers `GET`/`DELETE /query/jobs/{id}` and
 * `/query/jobs/{id}/stream` by forwarding the request over HTTP (HTTPS with `tls.enabled`,
 * peer-http.ts) to the member the id names, at its HTTP address from the cluster state, and
 * relaying the answer (the SSE stream as it comes). A
 * forwarded request is never forwarded again, so two nodes that disagree cannot bounce it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jobNodeTag, nodeTagOfJob } from '../../coordinator/jobs';
import { ApiError } from '../core/errors';
import type { Member } from './cluster-state';
import type { ClusterNode } from './cluster-node';
import type { Membership } from './membership';
import type { PeerHttpResponse } from './peer-http';
import { FORWARDED_HEADER, RelayedAnswer } from './forward-mark';

export { FORWARDED_HEADER };

/** A forwarded request's headers: the mark, and the caller's credentials (keys are valid on every node), which the other node checks again. */
export function forwardedHeaders(selfId: string, authorization: string | undefined): Record<string, string> {
  return authorization === undefined ? { [FORWARDED_HEADER]: selfId } : { [FORWARDED_HEADER]: selfId, authorization };
}

/** The longest a forwarded GET or DELETE may take. */
const FORWARD_TIMEOUT_MS = 10_000;

/** The member that holds job `id`, when it is another node of the cluster; null when it is this one or no member. */
export function jobHome(membership: Membership, selfId: string, id: string): Member | null {
  const tag = nodeTagOfJob(id);
  if (tag === null || tag === jobNodeTag(selfId)) return null;
  return membership.state().members.find((member) => jobNodeTag(member.id) === tag) ?? null;
}

function unavailable(member: Member, error: unknown): ApiError {
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return new ApiError('NODE_UNAVAILABLE', `the job runs on node ${member.id} (${member.http}), which is not answering: ${reason}`, {
    node: member.id,
  });
}

/**
 * Forwards the request to the job's node and relays its answer, returned; null when the job is this
 * node's own (or no member's: the caller answers 404 as for any unknown job).
 */
export async function forwardJobRequest(
  cluster: Pick<ClusterNode, 'membership' | 'http'> | null,
  selfId: string,
  id: string,
  request: FastifyRequest,
  reply: FastifyReply,
  stream: boolean,
): Promise<RelayedAnswer | null> {
  if (cluster === null || request.headers[FORWARDED_HEADER] !== undefined) return null;
  const member = jobHome(cluster.membership, selfId, id);
  if (member === null) return null;
  const abort = new AbortController();
  const headers = forwardedHeaders(selfId, request.headers.authorization);
  if (stream) {
    // The client leaving ends the forwarded stream too.
    reply.raw.on('close', () => abort.abort());
    headers.accept = 'text/event-stream';
  }
  let response: PeerHttpResponse;
  let text: string | null = null;
  try {
    response = await cluster.http.request(member, request.url, {
      method: request.method,
      headers,
      signal: stream ? abort.signal : AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    if (!stream) text = await response.text();
  } catch (error) {
    throw unavailable(member, error);
  }
  const type = response.contentType ?? 'application/json';
  if (!stream || !type.startsWith('text/event-stream')) {
    text ??= await response.text();
    await reply.status(response.status).header('content-type', type).send(text);
    return RelayedAnswer.of(response.status, jsonOrNull(text));
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(response.status, { 'content-type': type, 'cache-control': 'no-cache', connection: 'keep-alive' });
  try {
    for await (const chunk of response.body) {
      if (raw.destroyed) break;
      raw.write(chunk);
    }
  } catch {
    // The job's node went away mid-stream, or the client did: the stream ends here.
  } finally {
    abort.abort();
    raw.end();
  }
  return new RelayedAnswer(response.status, null);
}

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export interface ListedJob {
  job_id: string;
  query: string;
  status: string;
  created_at: string;
}

/**
 * `GET /query/jobs` in a cluster: this node's jobs and every other member's, asked over HTTP with
 * the same parameters (each answers with its own only, since the request is marked forwarded).
 * The ids of members that did not answer come back apart, so the list can say it is partial.
 */
export async function clusterJobList(
  cluster: Pick<ClusterNode, 'membership' | 'http'>,
  selfId: string,
  own: ListedJob[],
  search: string,
  authorization: string | undefined,
): Promise<{ jobs: ListedJob[]; missingNodes: string[] }> {
  const others = cluster.membership.state().members.filter((member) => member.id !== selfId);
  const answers = await Promise.all(
    others.map(async (member) => {
      try {
        const response = await cluster.http.request(member, `/api/v1/query/jobs${search}`, {
          headers: forwardedHeaders(selfId, authorization),
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        });
        if (!response.ok) {
          response.body.resume();
          return null;
        }
        const body = (await response.json()) as { data?: { jobs?: ListedJob[] } };
        return Array.isArray(body.data?.jobs) ? body.data.jobs : null;
      } catch {
        return null;
      }
    }),
  );
  const jobs = [...own];
  const missingNodes: string[] = [];
  answers.forEach((listed, i) => (listed === null ? missingNodes.push(others[i]!.id) : jobs.push(...listed)));
  // Newest first, as one node lists its own.
  jobs.sort((a, b) => (a.created_at > b.created_at ? -1 : a.created_at < b.created_at ? 1 : a.job_id < b.job_id ? -1 : 1));
  return { jobs, missingNodes: missingNodes.sort() };
}
