/**
 * The query `GET /audit` runs over the audit index: its filters as `where` clauses, the values
 * passed as variables (quoted and escaped by the parser, so a value cannot change the query), the
 * newest `limit` entries first.
 */
import { AUDIT_INDEX } from '../../storage/core/event';

export interface AuditFilters {
  /** An action (`auth.key.create`), or a prefix ending in `*` (`auth.*`). */
  action?: string;
  /** A key id: the entries of what it did, or of what was refused to it. */
  actor?: string;
  outcome?: string;
  clientIp?: string;
  /** A `where` expression over the entry's fields. */
  q?: string;
}

export interface AuditQuery {
  text: string;
  variables: Record<string, string>;
  /** Stages the text has when `q` is one expression (more: `q` closed its `where` and added stages). */
  stages: number;
}

export function auditQuery(filters: AuditFilters, limit: number): AuditQuery {
  const clauses: string[] = [];
  const variables: Record<string, string> = {};
  const { action } = filters;
  if (action !== undefined) {
    if (action.endsWith('*')) {
      clauses.push('startswith(action, $action)');
      variables.action = action.slice(0, -1);
    } else {
      clauses.push('action == $action');
      variables.action = action;
    }
  }
  if (filters.actor !== undefined) {
    clauses.push('actor_key_id == $actor');
    variables.actor = filters.actor;
  }
  if (filters.outcome !== undefined) {
    clauses.push('outcome == $outcome');
    variables.outcome = filters.outcome;
  }
  if (filters.clientIp !== undefined) {
    clauses.push('client_ip == $client_ip');
    variables.client_ip = filters.clientIp;
  }
  const stages = [`from ${AUDIT_INDEX}`];
  if (clauses.length > 0) stages.push(`where ${clauses.join(' and ')}`);
  // On a line of its own, so that a `//` or an open quote in it cannot reach the stages after it.
  if (filters.q !== undefined) stages.push(`where ${filters.q}\n`);
  stages.push(`head ${limit}`);
  return { text: stages.join(' | '), variables, stages: stages.length };
}
