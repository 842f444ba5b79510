/** What the alert endpoints share: schemas, the record lookup, and writes through the metadata writer. */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../app/app';
import { statusesFromCheckers } from '../../../cluster/alert-status-reads';
import { FORWARDED_HEADER } from '../../../cluster/job-forwarding';
import { alertIntervalMs } from '../../../alerts/alert-record';
import type { AlertDefinition } from '../../../alerts/scheduler';
import { validationError } from '../../../core/errors';
import { metadataApiError } from '../../../metadata/api-error';
import { ALERTS } from '../../../metadata/collections';
import { MetadataNotFoundError, type MetadataRecord, type MetadataWrite } from '../../../metadata/store';

export const ALERT_COLLECTION = ALERTS.name;
export const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;
export const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;
/** The shape only: alertRecord checks every field and answers 422 naming it. */
export const ALERT_BODY_SCHEMA = { type: 'object' } as const;
export const JSON_BODY = { bodyFormat: 'json' } as const;

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

export async function writeAlert(app: App, change: MetadataWrite): Promise<MetadataRecord | null> {
  if (change.op !== 'delete') checkAgainstSettings(app, change.record);
  try {
    return (await app.metadataWriter.write(change)).record;
  } catch (error) {
    throw metadataApiError(error);
  }
}

/** The stored alert of that id; 404 NOT_FOUND when there is none. */
export function storedAlert(app: App, id: string): AlertDefinition & MetadataRecord {
  const record = app.metadata.get(ALERT_COLLECTION, id);
  if (record === undefined) throw metadataApiError(new MetadataNotFoundError(ALERT_COLLECTION, id, ALERTS.noun));
  return record as AlertDefinition & MetadataRecord;
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
  );
  const merged = alerts.map((alert) => {
    const reported = statuses.get(String(alert.id));
    return { ...alert, ...(reported ?? {}), checked_by: checkerOf(String(alert.id)) };
  });
  return { alerts: merged, staleNodes: missing };
}
