/**
 * In a cluster an alert's status lives on the node that checks it (node/alerts/evaluator.ts).
 * `GET /alerts` on any node asks each other live member that checks some of the alerts for its own
 * view (`GET /alerts` marked forwarded, answered from that node's states alone) and takes each
 * alert's status from its checker. A member that does not answer leaves this node's copy of the
 * status in place, and the answer names it in `meta.stale_status_nodes`.
 */
import { forwardedHeaders } from './job-forwarding';
import type { ClusterNode } from './cluster-node';

/** The runtime fields of an alert as its checker reports them. */
export interface ReportedStatus {
  status: unknown;
  last_checked: unknown;
  last_triggered: unknown;
}

const READ_TIMEOUT_MS = 5_000;

/**
 * The statuses the checkers report, by alert id, for the alerts `checkerOf` gives to other nodes;
 * `missing`: the members that did not answer.
 */
export async function statusesFromCheckers(
  cluster: Pick<ClusterNode, 'membership' | 'http'>,
  selfId: string,
  alertIds: readonly string[],
  checkerOf: (id: string) => string | null,
  /** The caller's Authorization header, passed on: the checker answers only a request with a key. */
  authorization: string | undefined,
): Promise<{ statuses: Map<string, ReportedStatus>; missing: string[] }> {
  const wanted = new Set<string>();
  for (const id of alertIds) {
    const checker = checkerOf(id);
    if (checker !== null && checker !== selfId) wanted.add(checker);
  }
  const members = cluster.membership.state().members.filter((member) => wanted.has(member.id));
  const statuses = new Map<string, ReportedStatus>();
  const missing: string[] = [];
  await Promise.all(
    members.map(async (member) => {
      try {
        const response = await cluster.http.request(member, '/api/v1/alerts', {
          headers: forwardedHeaders(selfId, authorization),
          signal: AbortSignal.timeout(READ_TIMEOUT_MS),
        });
        if (!response.ok) {
          response.body.resume();
          missing.push(member.id);
          return;
        }
        const body = (await response.json()) as { data?: { alerts?: ({ id?: unknown } & ReportedStatus)[] } };
        for (const alert of body.data?.alerts ?? []) {
          if (typeof alert.id === 'string' && checkerOf(alert.id) === member.id) {
            statuses.set(alert.id, { status: alert.status, last_checked: alert.last_checked, last_triggered: alert.last_triggered });
          }
        }
      } catch {
        missing.push(member.id);
      }
    }),
  );
  return { statuses, missing: missing.sort() };
}
