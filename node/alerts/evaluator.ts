/**
 * Which node checks an alert in a cluster: the live member with the highest hash of (alert id,
 * member id) (rendezvous hashing). Every node computes the same answer from the same view of who
 * is up, an alert moves only when its node goes down or comes back, and the alerts spread evenly.
 */
import { createHash } from 'crypto';

function score(alertId: string, memberId: string): bigint {
  return createHash('sha256').update(alertId).update('\0').update(memberId).digest().readBigUInt64BE(0);
}

/** The member that checks the alert, or null when no member is live. */
export function evaluatorOf(alertId: string, liveMemberIds: readonly string[]): string | null {
  let best: string | null = null;
  let bestScore = -1n;
  for (const id of liveMemberIds) {
    const value = score(alertId, id);
    if (value > bestScore || (value === bestScore && best !== null && id < best)) {
      best = id;
      bestScore = value;
    }
  }
  return best;
}
