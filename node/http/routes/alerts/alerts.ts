/** What the alert endpoints share: schemas, the record lookup, and writes through the metadata writer. */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../app/app';
import { statusesFromCheckers } from '../../../cluster/alert-status-reads';
import { FORWARDED_HEADER } from '../../../cluster/job-forwarding';
import { alertIntervalMs } from '../../../alerts/alert-record';
import type { AlertDefinition } from '../../../alerts/scheduler';
import { validationError } from '../../../core/errors';
import { ALERTS } from '../../../metadata/collections';
import type { MetadataRecord, MetadataWrite } from '../../../metadata/store';
import { storedRecord, writeRecord } from '../metadata-records';

export { ID_PARAMS, JSON_BODY, NO_PARAMETERS } from '../metadata-records';

export const ALERT_COLLECTION = ALERTS.name;
/** The shape only: alertRecord checks every field and answers 422 naming it. */
export const ALERT_BODY_SCHEMA = { type: 'object' } as const;

export type AlertBody = Record<string, unknown>;

/** The query length and `alerts.min_interval` are this node's settings: checked here, before the store's authority. */
function checkAgainstSettings(app: App, body: AlertBody): void {
  const { q, interval } = body;
  const maxLength = app.settings.query.maxQueryLength;
  if (typeof q === 'string' && q.length > maxLength)
    throw validationError(`q is ${q.length} characters long; query.max_query_length is ${maxLength}`, 422);
  if (typeof interval === 'string') {
    const minMs = app.settings.alerts.minIntervalMs;
    if (alertIntervalMs(interval) < minMs)
      throw validationError(`interval ${interval} is shorter than alerts.min_interval (${minMs / 1000}s)`, 422);
  }
}

export async function writeAlert(app: App, request: FastifyRequest, change: MetadataWrite): Promise<MetadataRecord | null> {
  if (change.op !== 'delete') checkAgainstSettings(app, change.record);
  return writeRecord(app, request, change);
}

/** The stored alert of that id; 404 NOT_FOUND when there is none. */
export function storedAlert(app: App, id: string): AlertDefinition & MetadataRecord {
  return storedRecord(app, ALERTS, id) as AlertDefinition & MetadataRecord;
}

/**
 * The alerts as the API shows them, each with the status its checker holds: in a cluster the
 * other checkers are asked (a forwarded request answers from this node's states alone).
 * `staleNodes`: checkers that did not answer, whose alerts show this node's copy. In a cluster
 * each alert also says which node checks it (`checked_by`).
 */
export async function withStatus(
  app: App,
  records: readonly MetadataRecord[],
  request: FastifyRequest,
): Promise<{ alerts: MetadataRecord[]; staleNodes: string[] }> {
  const alerts = records.map((record) => app.alerts.view(record));
  const cluster = app.cluster;
  if (cluster === null || request.headers[FORWARDED_HEADER] !== undefined) return { alerts, staleNodes: [] };
  const checkerOf = (id: string) => app.alertChecker(id);
  const { statuses, missing } = await statusesFromCheckers(
    cluster,
    app.settings.cluster.nodeId,
    alerts.map((alert) => String(alert.id)),
    checkerOf,
    request.headers.authorization,
  );
  const merged = alerts.map((alert) => {
    const reported = statuses.get(String(alert.id));
    return { ...alert, ...(reported ?? {}), checked_by: checkerOf(String(alert.id)) };
  });
  return { alerts: merged, staleNodes: missing };
}
