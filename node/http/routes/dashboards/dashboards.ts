/** What the dashboard endpoints share: the body schema, and writes through the metadata writer. */
import type { App } from '../../../app/app';
import { metadataApiError } from '../../../metadata/api-error';
import { DASHBOARDS } from '../../../metadata/collections';
import { dashboardRecord } from '../../../metadata/dashboard';
import type { MetadataRecord, MetadataWrite } from '../../../metadata/store';

export const DASHBOARD_COLLECTION = DASHBOARDS.name;

/** Present with any value: refused, the message says why. */
const setByServer = { not: {}, description: 'is set by the server: leave it out of the request' } as const;

/** The shape only; dashboardRecord checks every field and names it by its path (`panels[1].position.x`). */
export const DASHBOARD_BODY_SCHEMA = {
  type: 'object',
  properties: { id: setByServer, created_at: setByServer, updated_at: setByServer },
} as const;

export const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false } as const;
export const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const;
export const JSON_BODY = { bodyFormat: 'json' } as const;

export type DashboardBody = Record<string, unknown>;

/** Checked here first for the query length limit, which the store's authority does not know. */
export async function writeDashboard(app: App, change: MetadataWrite): Promise<MetadataRecord | null> {
  if (change.op !== 'delete') dashboardRecord(change.record, app.settings.query.maxQueryLength);
  try {
    return (await app.metadataWriter.write(change)).record;
  } catch (error) {
    throw metadataApiError(error);
  }
}
