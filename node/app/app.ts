/**
 * The running node: its config (live, reloadable), the storage engine, metrics and lifecycle
 * state. Routes receive this object; nothing else is global.
 */
import { JobManager } from '../../coordinator/jobs';
import { QueryService } from '../../coordinator/query-service';
import { QueryWorkerPool } from '../../query/exec/session-pool';
import { StorageEngine, type EngineOptions } from '../../storage/engine';
import type { Config } from '../config/schema';
import { RESTART_REQUIRED_KEYS } from '../config/schema';
import { resolveSettings, type Settings } from '../config/settings';
import { changedKeys } from '../config/validate';
import { IngestParser } from '../ingest/parser-pool';
import { workerCounts } from './worker-counts';
import { localScanSource } from '../core/local-scan-source';
import { TlsMaterial } from '../core/tls-material';
import { memoryReport } from './memory-parts';
import { WorkShares } from './work-shares';
import { MetadataStore } from '../metadata/store';
import { LocalMetadataWriter, type MetadataWriter } from '../metadata/writer';
import { ClusterNode } from '../cluster/cluster-node';
import { addMetadataService, ForwardingMetadataWriter } from '../cluster/metadata-forwarding';
import { ClusterWritePath } from '../cluster/write-path';
import type { Logger } from '../core/logger';
import { clusterQueries } from '../cluster/cluster-queries';
import { Metrics } from '../metrics/metrics';
import { AlertService } from '../alerts/alert-service';
import { evaluatorOf } from '../alerts/evaluator';
import { ALERTS } from '../metadata/collections';
import { Authenticator } from '../auth/authenticator';
import { bootstrapRootKey, type Bootstrap } from '../auth/bootstrap';
import { AuditLog } from '../audit/audit-log';
import { VERSION } from './version';
import { TailSessions } from '../tail/tail-sessions';
import { addTailService, type TailService } from '../cluster/tail-service';
import { memberTailSource } from '../cluster/tail-feeds';

export function engineOptions(settings: Settings): EngineOptions {
  return {
    dataDir: settings.dataDir,
    placement: { bucketSpanMicros: settings.cluster.bucketSpanMs * 1000, partitions: settings.cluster.partitions },
    flushIntervalMs: settings.storage.flushIntervalMs,
    segmentMaxEvents: settings.storage.segmentMaxEvents,
    compressionLevel: settings.storage.compressionLevel,
    fsync: settings.storage.fsync,
    compactionIntervalMs: settings.storage.compactionIntervalMs,
    retentionMs: settings.retentionMs,
    codecWorkers: workerCounts(settings).codec,
    memtableBytes: settings.bufferManager.memtableMaxBytes,
  };
}

export interface ReloadResult {
  changed: string[];
  restartRequired: string[];
}

export class App {
  readonly version = VERSION;
  readonly startedAt = Date.now();
  readonly metrics: Metrics;
  settings: Settings;
  shuttingDown = false;

  readonly jobs: JobManager;
  readonly queries: QueryService;
  readonly queryWorkers: QueryWorkerPool;
  readonly ingestParser: IngestParser;
  /** Where metadata writes go: on one node, the node's own store; in a cluster, through the master. */
  metadataWriter: MetadataWriter;
  /** The node's cluster side, when `cluster.seeds` is set (cluster-node.ts); null for a node alone. */
  cluster: ClusterNode | null = null;
  /** Where ingest writes go in a cluster (every owner of each key); null for a node alone, which appends locally. */
  clusterWrites: ClusterWritePath | null = null;
  /** Live tail sessions and the ingest bus they listen to. */
  readonly tail: TailSessions;
  /** In a cluster, the other members' subscriptions to this node's ingest bus. */
  private tailService: TailService | null = null;
  /** The alerts this node checks, and the status of each (set in `start`). */
  alerts!: AlertService;
  /** How ingest and compaction yield to the queries running on this node (work-shares.ts). */
  readonly shares: WorkShares;
  /** The certificate, key and CA when `tls.enabled` (HTTPS, and gRPC between nodes); re-read on SIGHUP (`reloadTls`). */
  readonly tls: TlsMaterial | null;
  /** Which key a request's token belongs to, when `auth.enabled` (read at start: a change needs a restart); null when auth is off. */
  readonly authenticator: Authenticator | null;
  /** The audit log of administrative actions and refused credentials (node/audit). */
  readonly audit: AuditLog;

  private constructor(
    public config: Config,
    readonly engine: StorageEngine,
    readonly logger: Logger,
    /** Saved queries and the other metadata collections, persisted with the engine. */
    readonly metadata: MetadataStore,
    tls: TlsMaterial | null,
  ) {
    this.tls = tls;
    this.settings = resolveSettings(config);
    this.metadataWriter = new LocalMetadataWriter(metadata);
    this.authenticator = this.settings.auth.enabled ? new Authenticator(metadata) : null;
    this.metrics = new Metrics(() => this.engine);
    this.tail = new TailSessions((error) => logger.error(`live tail listener failed: ${error.stack ?? error.message}`));
    this.metrics.watchTail(() => this.tail.status());
    this.metrics.watchMemory(() => memoryReport(this));
    this.metrics.watch(engine);
    this.audit = new AuditLog({
      // Stored as an acknowledged event is: in a cluster by every owner of its key.
      store: (chunks, record, placement) =>
        this.clusterWrites !== null ? this.clusterWrites.router.write(chunks, record, placement) : engine.appendRecord(chunks, record),
      placement: () => engine.buffer.currentPlacement,
      nodeId: () => this.settings.cluster.nodeId,
      refusalLimits: () => ({ perWindow: this.settings.auth.auditRefusals, windowMs: this.settings.auth.auditRefusalWindowMs }),
      written: this.metrics.auditEntries,
      failed: this.metrics.auditFailures,
      logger,
    });
    this.jobs = new JobManager(this.settings.cluster.nodeId, () => this.settings.query.jobTtlMs);
    const changes = engine.buffer.changes;
    this.ingestParser = new IngestParser(workerCounts(this.settings).ingest);
    this.queryWorkers = new QueryWorkerPool(workerCounts(this.settings).query, {
      blockCacheBytes: this.settings.bufferManager.blockCacheMaxBytes,
    });
    this.metrics.workerThreads({ ...workerCounts(this.settings) });
    this.metrics.watchBlockCache(() => this.queryWorkers.blockCacheCounters());
    this.queries = new QueryService(
      localScanSource(engine),
      this.queryWorkers,
      this.jobs,
      () => ({
        maxConcurrent: this.settings.query.maxConcurrent,
        maxQueryRuntimeMs: this.settings.query.maxQueryRuntimeMs,
        maxQueryMemoryBytes: this.settings.query.maxQueryMemoryBytes,
      }),
      this.settings.query.globalMemoryPoolBytes,
      () => this.settings.query.cacheMaxBytes,
      () => changes.version,
      (version, indexes, from, to) => changes.changedSince(version, indexes, from, to),
    );
    this.shares = new WorkShares(
      () => this.queries.slots.running,
      () => ({
        ingestShare: this.settings.server.ingestShare,
        backgroundPauseMs: this.settings.server.backgroundPauseMs,
        ingestWorkers: workerCounts(this.settings).ingest,
        maxBufferedEvents: this.settings.ingest.maxBufferedEvents,
      }),
    );
    engine.backgroundTurn = () => this.shares.backgroundTurn();
    this.metrics.watchShares(() => this.shares.status());
    this.queries.fieldPresence = (index, fromMicros, toMicros, names) =>
      engine.fieldsPresent({ index, fromMicros, toMicros, source: null }, names);
    engine.on('error', (error: Error, phase: string) => logger.error(`storage ${phase} failed: ${error.message}`));
  }

  static async start(config: Config, logger: Logger): Promise<App> {
    const settings = resolveSettings(config);
    // Unusable certificate files stop the start before the storage opens.
    const tls = settings.tls.enabled ? TlsMaterial.open(settings.tls) : null;
    const engine = await StorageEngine.open(engineOptions(settings));
    if (engine.replayed.records > 0) {
      logger.info(`replayed ${engine.replayed.events} buffered events from ${engine.replayed.records} write-buffer records`);
    }
    for (const record of engine.replayed.quarantined) {
      logger.warn(
        `storage: write-buffer record ${record.seq} does not validate and was set aside in the quarantine as ${record.key}, not replayed: ${record.reason}`,
      );
    }
    const metadata = await MetadataStore.open(engine.records('metadata'));
    engine.start();
    const app = new App(config, engine, logger, metadata, tls);
    if (settings.cluster.seeds.length > 0) {
      try {
        await app.joinCluster();
      } catch (error) {
        await app.close();
        throw error;
      }
    }
    app.alerts = await AlertService.open({
      records: engine.records('alerts'),
      queries: app.queries,
      alerts: () => metadata.list(ALERTS.name),
      settings: () => app.settings,
      logger,
      evaluates: (id) => app.evaluatesAlert(id),
      stallPauseMs: () => (app.cluster === null ? null : app.settings.cluster.failureTimeoutMs),
    });
    app.alerts.scheduler.start();
    app.audit.start();
    app.queryWorkers.warm();
    app.ingestParser.warm();
    return app;
  }

  /** Starts the cluster side: the gRPC services, then the join (or rejoin). */
  private async joinCluster(): Promise<void> {
    const onFailure = (error: Error): void => this.logger.error(`gRPC handler failed: ${error.stack ?? error.message}`);
    const queries = clusterQueries(this, onFailure);
    const cluster = await ClusterNode.start(this.settings, this.engine, this.metadata, this.logger, this.tls, (node) => {
      addMetadataService(node.server, node.membership, this.metadata, onFailure);
      this.clusterWrites = ClusterWritePath.attach(node, {
        engine: this.engine,
        settings: () => this.settings,
        metrics: this.metrics,
        logger: this.logger,
        onFailure,
      });
      queries.addService(node);
      this.tailService = addTailService(node.server, this.tail.bus, onFailure);
    });
    this.cluster = cluster;
    this.tail.remoteSource = memberTailSource({
      membership: cluster.membership,
      peers: cluster.peers,
      checkIntervalMs: () => this.settings.cluster.heartbeatIntervalMs,
      readyTimeoutMs: () => this.settings.cluster.failureTimeoutMs,
    });
    this.queries.distribution = queries.distribution(cluster);
    this.metadataWriter = new ForwardingMetadataWriter(this.metadata, cluster.membership, cluster.peers);
  }

  /**
   * With auth on, the first root key when none is stored: made by the node that applies metadata
   * writes (alone, or the master), for `givenToken` (TRAWL_ROOT_TOKEN) or `auth.root_token` when set.
   */
  bootstrapAuth(givenToken: string | null): Promise<Bootstrap> {
    if (this.authenticator === null || (this.cluster !== null && !this.cluster.membership.isMaster))
      return Promise.resolve({ made: 'none' });
    return bootstrapRootKey(this.metadata, this.metadataWriter, givenToken ?? this.settings.auth.rootToken);
  }

  /** A node alone checks every alert; in a cluster one live member does (evaluator.ts). */
  evaluatesAlert(id: string): boolean {
    return this.alertChecker(id) === this.settings.cluster.nodeId;
  }

  /** The node that checks the alert: this one alone, else a live member (null when none is live). */
  alertChecker(id: string): string | null {
    if (this.cluster === null) return this.settings.cluster.nodeId;
    const live = this.cluster.membership
      .members()
      .filter((view) => view.up && !view.removed)
      .map((view) => view.member.id);
    return evaluatorOf(id, live);
  }

  /** Stops the alerts, the cluster side, the workers and the storage (after the HTTP server stopped taking requests). */
  async close(): Promise<void> {
    await this.alerts?.scheduler.stop();
    // While the write path still runs: the summaries of refusals not yet written.
    await this.audit.close();
    this.jobs.close();
    this.tail.closeAll();
    this.tailService?.close();
    await this.clusterWrites?.close();
    await this.cluster?.close();
    await this.queryWorkers.close();
    await this.ingestParser.close();
    await this.engine.close();
  }

  /** Applies a validated config (SIGHUP or `PATCH /config`): live keys at once, others after a restart. */
  applyConfig(next: Config): ReloadResult {
    const changed = changedKeys(this.config, next);
    const restartRequired = changed.filter((key) => RESTART_REQUIRED_KEYS.has(key));
    const live: Config = structuredClone(next);
    // Keys that need a restart keep their running value until then.
    for (const key of restartRequired) {
      const [section, sub] = key.split('.');
      if (sub === undefined) live[section] = this.config[section];
      else (live[section] as Record<string, unknown>)[sub] = (this.config[section] as Record<string, unknown>)[sub];
    }
    this.config = live;
    this.settings = resolveSettings(live);
    this.engine.updateOptions(engineOptions(this.settings));
    this.queries.pool.capacity = this.settings.query.globalMemoryPoolBytes;
    return { changed, restartRequired };
  }

  /**
   * SIGHUP: re-reads the certificate, key and CA at the running `tls.*` paths (which a reload may
   * have changed). New HTTPS and gRPC connections use them; open ones keep theirs. Throws, keeping
   * the files in use, when they cannot be used; null when TLS is off.
   */
  reloadTls(): { validTo: string } | null {
    if (this.tls === null) return null;
    this.tls.reload(this.settings.tls);
    return { validTo: this.tls.validTo };
  }

  uptimeSeconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }
}
