/**
 * Whether a request is one another node of the cluster passed on (a job's request sent to the node
 * that runs it, a removal sent to the master), so that the node that took it from the client is the
 * one that records it in the audit log, once. The mark `x-trawl-forwarded-by` alone could be sent by
 * any client to skip the record, so it is believed only when the request also proves it came from
 * that member: with `cluster.secret`, by the proof of the secret over its method and URL
 * (call-proof.ts, the same as on gRPC calls); without one, by coming from an address of that member.
 */
import { isIP } from 'net';
import type { IncomingHttpHeaders } from 'http';
import { checkProof, PROOF_KEY } from './grpc/call-proof';
import type { Member } from './cluster-state';

/** Marks a request one node forwarded to another. */
export const FORWARDED_HEADER = 'x-trawl-forwarded-by';

/** The answer of the member a request was passed on to, as this node relayed it to the client. */
export class RelayedAnswer {
  constructor(
    readonly status: number,
    /** The error code of an error answer; null otherwise, or when its body did not say. */
    readonly code: string | null,
  ) {}

  /** From a relayed JSON body (`{"error": {"code": ...}}` for an error). */
  static of(status: number, body: unknown): RelayedAnswer {
    const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
    return new RelayedAnswer(status, typeof code === 'string' ? code : null);
  }
}

/** What a proof of a forwarded HTTP request signs: its method and URL (path and query, as sent). */
export function forwardProofSubject(method: string, url: string): string {
  return `${method.toUpperCase()} ${url}`;
}

/** The host of `host:port` (an IPv6 one in brackets), without the brackets. */
function hostOf(address: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(address);
  if (bracketed !== null) return bracketed[1]!;
  const colon = address.lastIndexOf(':');
  return colon < 0 ? address : address.slice(0, colon);
}

/** An IPv4 peer as Node reports it on a dual-stack socket (`::ffff:10.0.0.7`) is that IPv4 address. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export interface ForwardedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The TCP peer's address. */
  peer: string | undefined;
}

/** True when `request` carries the mark of a member (not this node) and proves it. */
export function isPeerForward(request: ForwardedRequest, members: readonly Member[], selfId: string, secret: string | null): boolean {
  const by = request.headers[FORWARDED_HEADER];
  if (typeof by !== 'string' || by === selfId) return false;
  const member = members.find((candidate) => candidate.id === by);
  if (member === undefined) return false;
  if (secret !== null) {
    const proof = request.headers[PROOF_KEY];
    const check = checkProof(secret, typeof proof === 'string' ? proof : undefined, forwardProofSubject(request.method, request.url));
    return check.ok && check.nodeId === by;
  }
  // A member named by host name does not match here: its forwards are then recorded by both nodes.
  if (request.peer === undefined) return false;
  const peer = plainAddress(request.peer);
  return [member.http, member.grpc].some((address) => plainAddress(hostOf(address)) === peer);
}
