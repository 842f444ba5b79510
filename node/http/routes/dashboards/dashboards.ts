/** What the dashboard endpoints share: the body schema, and writes through the metadata writer. */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../../app/app';
import { DASHBOARDS } from '../../../metadata/collections';
import { dashboardRecord } from '../../../metadata/dashboard';
import type { MetadataRecord, MetadataWrite } from '../../../metadata/store';
import { SET_BY_SERVER, writeRecord } from '../metadata-records';

export { ID_PARAMS, JSON_BODY, NO_PARAMETERS } from '../metadata-records';

export const DASHBOARD_COLLECTION = DASHBOARDS.name;

/** The shape only; dashboardRecord checks every field and names it by its path (`panels[1].position.x`). */
export const DASHBOARD_BODY_SCHEMA = {
  type: 'object',
  properties: { id: SET_BY_SERVER, created_at: SET_BY_SERVER, updated_at: SET_BY_SERVER },
} as const;

export type DashboardBody = Record<string, unknown>;

/** Checked here first for the query length limit, which the store's authority does not know. */
export async function writeDashboard(app: App, request: FastifyRequest, change: MetadataWrite): Promise<MetadataRecord | null> {
  if (change.op !== 'delete') dashboardRecord(change.record, app.settings.query.maxQueryLength);
  return writeRecord(app, request, change);
}
