/**
 * Operational endpoints, one file each: health, Prometheus and JSON metrics, status, storage stats,
 * compaction history, the cluster status and the runtime config.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { App } from '../../../app/app';
import { clusterStatusRoute } from './cluster-status';
import { compactionHistoryRoute } from './compaction-history';
import { healthRoute } from './health';
import { jsonMetricsRoute } from './json-metrics';
import { patchConfigRoute } from './patch-config';
import { prometheusMetricsRoute } from './prometheus-metrics';
import { readConfigRoute } from './read-config';
import { statusRoute } from './status';
import { storageStatsRoute } from './storage-stats';

/** `/health` and `/metrics` at the root, always unauthenticated. */
export function rootRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    healthRoute(server, app);
    prometheusMetricsRoute(server, app);
  };
}

/** The operational endpoints under `/api/v1`. */
export function opsRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    statusRoute(server, app);
    storageStatsRoute(server, app);
    jsonMetricsRoute(server, app);
    compactionHistoryRoute(server, app);
    clusterStatusRoute(server, app);
    readConfigRoute(server, app);
    patchConfigRoute(server, app);
  };
}
