/**
 * Distributed queries on a clustered node, wired from the App: the ShardQuery service this node
 * answers other coordinators with, and the Distribution its own queries run over. This node's
 * own fragments run locally (no gRPC hop) and count in the same metrics as the ones it serves.
 */
import { localCatalogPart } from '../../coordinator/local-catalog';
import { LocalShardTarget } from '../../coordinator/local-target';
import type { Distribution } from '../../coordinator/distribution';
import type { ShardTarget } from '../../coordinator/scatter-gather';
import { indexMatcher } from '../../storage/scan';
import type { StorageEngine } from '../../storage/engine';
import type { QuerySlots } from '../../coordinator/query-slots';
import type { MemoryPool } from '../../query/exec/limits';
import type { QueryWorkerPool } from '../../query/exec/session-pool';
import type { Settings } from '../config/settings';
import type { Metrics } from '../metrics/metrics';
import { localScanSource } from '../core/local-scan-source';
import type { ClusterNode } from './cluster-node';
import { QueryDistribution } from './query-distribution';
import { ShardQueryMetrics } from './shard-query-metrics';
import { addShardQueryService } from './shard-query-service';

export interface ClusterQueries {
  /** Adds the ShardQuery service to the node's gRPC server (before it listens). */
  addService(node: ClusterNode): void;
  /** The node's queries over the cluster, once it is a member. */
  distribution(node: ClusterNode): Distribution;
}

/** What the wiring takes from the node's App (read when used: settings change on a reload). */
export interface QueryHost {
  readonly settings: Settings;
  readonly metrics: Pick<Metrics, 'registry'>;
  readonly engine: StorageEngine;
  readonly queries: { readonly pool: MemoryPool; readonly slots: QuerySlots };
  readonly queryWorkers: QueryWorkerPool;
}

export function clusterQueries(app: QueryHost, onFailure: (error: Error) => void): ClusterQueries {
  const metrics = new ShardQueryMetrics(app.metrics.registry);
  const source = localScanSource(app.engine);
  const fragment = {
    maxQueryMemoryBytes: () => app.settings.query.maxQueryMemoryBytes,
    pool: app.queries.pool,
    heldIndexes: () => app.engine.heldIndexNames(),
  };
  const own = new LocalShardTarget(app.settings.cluster.nodeId, source, app.queryWorkers, fragment);
  const local: ShardTarget = {
    node: own.node,
    run: (shard, call) => metrics.serve(call.signal, () => own.run(shard, call)),
    catalog: (keys, request) => Promise.resolve(localCatalogPart(app.engine, keys, request)),
  };
  return {
    addService: (node) =>
      addShardQueryService(
        node.server,
        {
          engine: app.engine,
          source,
          workers: app.queryWorkers,
          fragment,
          slots: app.queries.slots,
          maxQueryRuntimeMs: () => app.settings.query.maxQueryRuntimeMs,
          metrics,
          catchingUp: () => node.catchUp.catchingUp(),
        },
        onFailure,
      ),
    distribution: (node) =>
      new QueryDistribution({
        self: node.self.id,
        membership: node.membership,
        peers: node.peers,
        fragments: node.fragments,
        mayAsk: (id) => node.catchUp.mayAsk(id),
        reportsHeard: (signal) => node.catchUp.reportsHeard(app.settings.cluster.heartbeatIntervalMs, signal),
        localKeys: (range) =>
          app.engine.localKeys({ index: indexMatcher(range.indexPatterns), fromMicros: range.fromMicros, toMicros: range.toMicros }),
        local,
        placement: () => ({
          replicationFactor: app.settings.cluster.replicationFactor,
          bucketSpanMicros: app.settings.cluster.bucketSpanMs * 1000,
          partitions: app.settings.cluster.partitions,
          retentionMs: app.settings.retentionMs,
          maxFutureMs: app.settings.ingest.maxFutureMs,
        }),
        observer: metrics,
        failureTimeoutMs: () => app.settings.cluster.failureTimeoutMs,
      }),
  };
}
