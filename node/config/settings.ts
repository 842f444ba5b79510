/**
 * Settings: the config resolved to numbers (milliseconds, bytes) for the code to read.
 * Recomputed on every reload; parts hold a reference to the live `SettingsHolder`.
 */
import type { Config, ConfigSection } from './schema';
import { parseDurationMs, parseSizeBytes } from './units';

const ms = (value: unknown): number => parseDurationMs(value as string) as number;
const bytes = (value: unknown): number => parseSizeBytes(value as string) as number;

export interface Settings {
  listen: { host: string; port: number };
  dataDir: string;
  retentionMs: number;
  logLevel: string;
  storage: {
    flushIntervalMs: number;
    segmentMaxEvents: number;
    compressionLevel: number;
    fsync: boolean;
    compactionIntervalMs: number;
  };
  query: {
    syncTimeoutMs: number;
    jobTtlMs: number;
    defaultResultLimit: number;
    maxResultLimit: number;
    maxQueryLength: number;
    maxQueryRuntimeMs: number;
    maxConcurrent: number;
    maxQueryMemoryBytes: number;
    globalMemoryPoolBytes: number;
    cacheMaxBytes: number;
  };
  /** Decompressed column blocks the query workers keep (storage/segment/payload-cache.ts), shared among them. */
  bufferManager: { blockCacheMaxBytes: number; memtableMaxBytes: number };
  /** Worker threads of each pool; 0 sizes the pool from the cores (node/app/worker-counts.ts). */
  /** `ingestShare`, `backgroundPauseMs`: how ingest and compaction yield to running queries (node/app/work-shares.ts). */
  server: { ingestWorkers: number; queryWorkers: number; codecWorkers: number; ingestShare: number; backgroundPauseMs: number };
  /** `maxFutureMs`: events further ahead of the receive time are refused (node/ingest/refusal.ts). */
  ingest: { maxBodySizeBytes: number; rateLimit: number; maxBufferedEvents: number; pipeline: boolean; maxFutureMs: number };
  http: { requestTimeoutMs: number; shutdownTimeoutMs: number; corsOrigins: string[] };
  /** Live tail sessions (node/tail). */
  tail: { heartbeatIntervalMs: number; maxSessions: number; maxSessionDurationMs: number };
  /** `caFile`: the CA a node trusts for the other members' HTTPS (node/cluster/peer-http.ts); none: the system's. */
  tls: { enabled: boolean; certFile: string | null; keyFile: string | null; caFile: string | null };
  /**
   * `rootToken`: the first root key's token when none is stored yet (node/auth/bootstrap.ts).
   * `auditRefusals` per client address and `auditRefusalWindowMs`: the bound on refused credentials the audit log records.
   */
  auth: { enabled: boolean; rootToken: string | null; auditRefusals: number; auditRefusalWindowMs: number };
  /** The API base URLs are null for the services' public ones (node/alerts/channels). */
  alerts: {
    minIntervalMs: number;
    maxConcurrentChecks: number;
    sendTimeoutMs: number;
    chatBotApi: string | null;
    incidentPagerApi: string | null;
    opsAlertApi: string | null;
    incidentPlatformApi: string | null;
  };
  cluster: {
    nodeId: string;
    grpcListen: string;
    seeds: string[];
    role: string;
    replicationFactor: number;
    /** Partitions per (index, bucket): 1 on a lone node, so its segments stay large. */
    partitions: number;
    heartbeatIntervalMs: number;
    failureTimeoutMs: number;
    /** How long an owner has to store its share of a write before the share becomes a hint. */
    writeTimeoutMs: number;
    bucketSpanMs: number;
    /** What every gRPC call between nodes proves it knows (node/cluster/grpc/call-proof.ts); null: no proof. */
    secret: string | null;
  };
}

export function splitHostPort(listen: string): { host: string; port: number } {
  const colon = listen.lastIndexOf(':');
  let host = listen.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? '0.0.0.0' : host, port: Number(listen.slice(colon + 1)) };
}

export function resolveSettings(config: Config): Settings {
  const storage = config.storage as ConfigSection;
  const query = config.query as ConfigSection;
  const ingest = config.ingest as ConfigSection;
  const http = config.http as ConfigSection;
  const cluster = config.cluster as ConfigSection;
  const tls = config.tls as ConfigSection;
  const alerts = config.alerts as ConfigSection;
  const tail = config.tail as ConfigSection;
  const seeds = cluster.seeds as string[];
  return {
    listen: splitHostPort(config.listen as string),
    dataDir: config.data_dir as string,
    retentionMs: ms(config.retention),
    logLevel: config.log_level as string,
    storage: {
      flushIntervalMs: ms(storage.flush_interval),
      segmentMaxEvents: storage.segment_max_events as number,
      compressionLevel: storage.compression_level as number,
      fsync: storage.fsync as boolean,
      compactionIntervalMs: ms(storage.compaction_interval),
    },
    query: {
      syncTimeoutMs: ms(query.sync_timeout),
      jobTtlMs: ms(query.job_ttl),
      defaultResultLimit: query.default_result_limit as number,
      maxResultLimit: query.max_result_limit as number,
      maxQueryLength: query.max_query_length as number,
      maxQueryRuntimeMs: ms(query.max_query_runtime),
      maxConcurrent: query.max_concurrent as number,
      maxQueryMemoryBytes: bytes(query.max_query_memory),
      globalMemoryPoolBytes: bytes(query.global_memory_pool),
      cacheMaxBytes: bytes(query.cache_max_bytes),
    },
    bufferManager: {
      blockCacheMaxBytes: bytes((config.buffer_manager as ConfigSection).block_cache_max_bytes),
      memtableMaxBytes: bytes((config.buffer_manager as ConfigSection).memtable_max_bytes),
    },
    server: {
      ingestWorkers: (config.server as ConfigSection).ingest_workers as number,
      queryWorkers: (config.server as ConfigSection).query_workers as number,
      codecWorkers: (config.server as ConfigSection).codec_workers as number,
      ingestShare: (config.server as ConfigSection).ingest_share as number,
      backgroundPauseMs: ms((config.server as ConfigSection).background_pause),
    },
    ingest: {
      maxBodySizeBytes: bytes(ingest.max_body_size),
      rateLimit: ingest.rate_limit as number,
      maxBufferedEvents: ingest.max_buffered_events as number,
      pipeline: ingest.pipeline as boolean,
      maxFutureMs: ms(ingest.max_future),
    },
    http: {
      requestTimeoutMs: ms(http.request_timeout),
      shutdownTimeoutMs: ms(http.shutdown_timeout),
      corsOrigins: http.cors_origins as string[],
    },
    tail: {
      heartbeatIntervalMs: ms(tail.heartbeat_interval),
      maxSessions: tail.max_sessions as number,
      maxSessionDurationMs: ms(tail.max_session_duration),
    },
    tls: {
      enabled: tls.enabled as boolean,
      certFile: tls.cert_file as string | null,
      keyFile: tls.key_file as string | null,
      caFile: tls.ca_file as string | null,
    },
    auth: {
      enabled: (config.auth as ConfigSection).enabled as boolean,
      rootToken: (config.auth as ConfigSection).root_token as string | null,
      auditRefusals: (config.auth as ConfigSection).audit_refusals as number,
      auditRefusalWindowMs: ms((config.auth as ConfigSection).audit_refusal_window),
    },
    alerts: {
      minIntervalMs: ms(alerts.min_interval),
      maxConcurrentChecks: alerts.max_concurrent_checks as number,
      sendTimeoutMs: ms(alerts.send_timeout),
      chatBotApi: alerts.chat_bot_api as string | null,
      incidentPagerApi: alerts.incident_pager_api as string | null,
      opsAlertApi: alerts.ops_alert_api as string | null,
      incidentPlatformApi: alerts.incident_platform_api as string | null,
    },
    cluster: {
      nodeId: cluster.node_id as string,
      grpcListen: cluster.grpc_listen as string,
      seeds,
      role: cluster.role as string,
      replicationFactor: cluster.replication_factor as number,
      // A node outside a cluster keeps one partition per (index, bucket): its segments stay large.
      partitions: seeds.length > 0 ? (cluster.partitions as number) : 1,
      bucketSpanMs: ms(cluster.bucket_span),
      heartbeatIntervalMs: ms(cluster.heartbeat_interval),
      failureTimeoutMs: ms(cluster.failure_timeout),
      writeTimeoutMs: ms(cluster.write_timeout),
      secret: cluster.secret as string | null,
    },
  };
}
