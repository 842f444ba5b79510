/**
 * Proof of `cluster.secret` on a call between nodes, without sending the secret: the metadata
 * `x-trawl-proof: <node id>.<unix ms>.<hex HMAC-SHA256(secret, "<node id>.<unix ms>.<method path>")>`.
 * The time bounds a captured proof to the freshness window, and the method path to the one method
 * it was made for. Without TLS a proof seen on the wire can be replayed to that method within the
 * window; the secret itself never travels.
 */
import crypto from 'crypto';

export const PROOF_KEY = 'x-trawl-proof';
/** How far a proof's time may be from the callee's clock, either way: the nodes' clocks differ a little. */
export const PROOF_WINDOW_MS = 5 * 60_000;

/** Why a call's proof was not taken: a metric label and a log reason. */
export type ProofFailure = 'no-proof' | 'malformed-proof' | 'stale-proof' | 'wrong-proof';

export type ProofCheck = { ok: true; nodeId: string } | { ok: false; reason: ProofFailure; message: string };

/** A node id (config/peer-names.ts allows letters, digits, ".", "_", "-"), a time, a MAC. */
const PROOF = /^([A-Za-z0-9._-]{1,256})\.(\d{1,15})\.([0-9a-f]{64})$/;

function mac(secret: string, nodeId: string, atMs: number, path: string): Buffer {
  return crypto.createHmac('sha256', secret).update(`${nodeId}.${atMs}.${path}`).digest();
}

/** The proof `nodeId` sends with a call of `path` (`/trawl.v1.Membership/Join`) at `nowMs`. */
export function signProof(secret: string, nodeId: string, path: string, nowMs: number = Date.now()): string {
  return `${nodeId}.${nowMs}.${mac(secret, nodeId, nowMs, path).toString('hex')}`;
}

/** Checks a call's proof (undefined: the call carried none) against this node's secret, in constant time. */
export function checkProof(secret: string, proof: string | undefined, path: string, nowMs: number = Date.now()): ProofCheck {
  if (proof === undefined || proof === '') {
    return {
      ok: false,
      reason: 'no-proof',
      message:
        'this cluster requires proof of cluster.secret and the call carried none: set cluster.secret on the calling node, the same on every node',
    };
  }
  const parts = PROOF.exec(proof);
  if (parts === null) {
    return { ok: false, reason: 'malformed-proof', message: `the ${PROOF_KEY} metadata is not <node id>.<unix ms>.<hex HMAC-SHA256>` };
  }
  const [, nodeId = '', at = '', hex = ''] = parts;
  const atMs = Number(at);
  if (Math.abs(nowMs - atMs) > PROOF_WINDOW_MS) {
    return {
      ok: false,
      reason: 'stale-proof',
      message: `the proof's time is ${Math.round((nowMs - atMs) / 1000)} s from this node's clock, over the ${PROOF_WINDOW_MS / 1000} s allowed: keep the nodes' clocks in sync`,
    };
  }
  if (!crypto.timingSafeEqual(Buffer.from(hex, 'hex'), mac(secret, nodeId, atMs, path))) {
    return {
      ok: false,
      reason: 'wrong-proof',
      message: "the proof does not match this node's cluster.secret: every node of a cluster sets the same one",
    };
  }
  return { ok: true, nodeId };
}
