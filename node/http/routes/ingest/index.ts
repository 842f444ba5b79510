/**
 * Ingest endpoints, one file each: `POST /ingest` (JSON array), `/ingest/raw` (text lines),
 * `/ingest/hec` (event-collector lines). The bulk alias `/ingest/bulk` is registered with the
 * Elasticsearch routes (same handler, routes/es/bulk.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import type { IngestFlow } from '../../ingest-flow';
import { hecIngestRoute } from './hec';
import { nativeIngestRoute } from './native';
import { rawIngestRoute } from './raw';

export function ingestRoutes(app: App, flow: IngestFlow): FastifyPluginAsync {
  return async (server) => {
    nativeIngestRoute(server, flow);
    rawIngestRoute(server, app, flow);
    hecIngestRoute(server, flow);
  };
}
