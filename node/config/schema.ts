/**
 * The config contract of docs/architecture.md: every key, its default and its kind. Values keep the
 * user's form (`30s`, `64mb`) so `GET /config` shows what was written; `settings.ts` resolves
 * them to numbers for the code.
 */
import os from 'os';

export type FieldKind =
  'string' | 'duration' | 'size' | 'integer' | 'fraction' | 'boolean' | 'string-list' | 'listen' | 'log-level' | 'free';

type Schema = Record<string, FieldKind | Record<string, FieldKind>>;

/** Key kinds by section. `free` sections accept any object (features fill them later). */
export const CONFIG_SCHEMA: Schema = {
  listen: 'listen',
  data_dir: 'string',
  retention: 'duration',
  log_level: 'log-level',
  storage: {
    flush_interval: 'duration',
    segment_max_events: 'integer',
    compression_level: 'integer',
    fsync: 'boolean',
    compaction_interval: 'duration',
  },
  query: {
    sync_timeout: 'duration',
    job_ttl: 'duration',
    default_result_limit: 'integer',
    max_result_limit: 'integer',
    max_query_length: 'integer',
    max_query_runtime: 'duration',
    max_concurrent: 'integer',
    max_query_memory: 'size',
    global_memory_pool: 'size',
    cache_max_bytes: 'size',
  },
  ingest: {
    max_body_size: 'size',
    rate_limit: 'integer',
    max_buffered_events: 'integer',
    pipeline: 'boolean',
    max_future: 'duration',
  },
  http: {
    request_timeout: 'duration',
    shutdown_timeout: 'duration',
    cors_origins: 'string-list',
  },
  tail: {
    heartbeat_interval: 'duration',
    max_sessions: 'integer',
    max_session_duration: 'duration',
  },
  tls: { enabled: 'boolean', cert_file: 'string', key_file: 'string', ca_file: 'string' },
  auth: { enabled: 'boolean', root_token: 'string', audit_refusals: 'integer', audit_refusal_window: 'duration' },
  alerts: {
    min_interval: 'duration',
    max_concurrent_checks: 'integer',
    send_timeout: 'duration',
    chat_bot_api: 'string',
    incident_pager_api: 'string',
    ops_alert_api: 'string',
    incident_platform_api: 'string',
  },
  cluster: {
    node_id: 'string',
    grpc_listen: 'listen',
    seeds: 'string-list',
    role: 'string',
    replication_factor: 'integer',
    partitions: 'integer',
    bucket_span: 'duration',
    heartbeat_interval: 'duration',
    failure_timeout: 'duration',
    write_timeout: 'duration',
    secret: 'string',
  },
  server: {
    ingest_workers: 'integer',
    query_workers: 'integer',
    codec_workers: 'integer',
    ingest_share: 'fraction',
    background_pause: 'duration',
  },
  views: 'free',
  buffer_manager: {
    block_cache_max_bytes: 'size',
    memtable_max_bytes: 'size',
  },
  profiles: 'free',
};

export type ConfigValue = string | number | boolean | string[] | null | Record<string, unknown>;
export type ConfigSection = Record<string, ConfigValue>;
export type Config = Record<string, ConfigValue | ConfigSection>;

export function defaultConfig(): Config {
  return {
    listen: '127.0.0.1:7480',
    data_dir: './data',
    retention: '7d',
    log_level: 'info',
    storage: {
      flush_interval: '1s',
      segment_max_events: 262144,
      compression_level: 3,
      fsync: false,
      compaction_interval: '30s',
    },
    query: {
      sync_timeout: '30s',
      job_ttl: '5m',
      default_result_limit: 1000,
      max_result_limit: 50000,
      max_query_length: 65536,
      max_query_runtime: '5m',
      max_concurrent: 10,
      max_query_memory: '1gb',
      global_memory_pool: '4gb',
      cache_max_bytes: '256mb',
    },
    ingest: {
      max_body_size: '100mb',
      rate_limit: 0,
      max_buffered_events: 2_000_000,
      pipeline: true,
      max_future: '1d',
    },
    http: { request_timeout: '60s', shutdown_timeout: '30s', cors_origins: [] },
    tail: { heartbeat_interval: '15s', max_sessions: 100, max_session_duration: '24h' },
    tls: { enabled: false, cert_file: null, key_file: null, ca_file: null },
    // Refused credentials written to the audit log per client address and window (node/audit/refusal-bound.ts).
    auth: { enabled: false, root_token: null, audit_refusals: 10, audit_refusal_window: '1m' },
    alerts: {
      min_interval: '10s',
      max_concurrent_checks: 10,
      send_timeout: '10s',
      chat_bot_api: null,
      incident_pager_api: null,
      ops_alert_api: null,
      incident_platform_api: null,
    },
    cluster: {
      node_id: os.hostname(),
      grpc_listen: '127.0.0.1:7481',
      seeds: [],
      role: 'all',
      replication_factor: 1,
      partitions: 16,
      bucket_span: '1h',
      heartbeat_interval: '1s',
      failure_timeout: '5s',
      write_timeout: '2s',
      // Unset: calls between nodes carry no proof and the node warns at start (node/cluster/grpc/call-proof.ts).
      secret: null,
    },
    // 0: sized from the cores (node/app/worker-counts.ts). Several nodes on one machine set them lower.
    // While queries run: ingest keeps at most this share of the parse workers and of the write
    // buffer's bound, and compaction waits up to background_pause (node/app/work-shares.ts).
    server: { ingest_workers: 0, query_workers: 0, codec_workers: 0, ingest_share: 0.5, background_pause: '30s' },
    views: {},
    buffer_manager: {
      block_cache_max_bytes: '256mb',
      memtable_max_bytes: '128mb',
    },
    profiles: {},
  };
}

/** Keys whose change takes effect only after a restart (reported by reload and `PATCH /config`). */
export const RESTART_REQUIRED_KEYS = new Set([
  'listen',
  'data_dir',
  'tls.enabled',
  'auth.enabled',
  'cluster.node_id',
  'cluster.grpc_listen',
  'cluster.seeds',
  'cluster.role',
  'cluster.replication_factor',
  'cluster.partitions',
  'cluster.bucket_span',
  'cluster.heartbeat_interval',
  'cluster.failure_timeout',
  'cluster.secret',
  'buffer_manager.block_cache_max_bytes',
  'buffer_manager.memtable_max_bytes',
  'server.ingest_workers',
  'server.query_workers',
  'server.codec_workers',
]);
