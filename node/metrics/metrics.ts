/**
 * Prometheus metrics (root `GET /metrics`) on prom-client: ingest counters by endpoint, buffer
 * gauges, flush and compaction durations, segment counts and the default process metrics.
 */
import client from 'prom-client';
import type { StorageEngine } from '../../storage/engine';
import { INGEST_FORMATS, type IngestFormat } from '../ingest/format-dispatch';
import { REFUSAL_REASONS, type RefusalCounts, type RefusalReason } from '../ingest/refusal';

/** `trawl_ingest_events_refused_total` as `GET /api/v1/metrics` shows it. */
export interface RefusedEvents {
  total: number;
  /** Every reason, 0 when none was refused for it. */
  by_reason: Record<RefusalReason, number>;
  /** Formats with refused events: their counts by reason. */
  by_format: Partial<Record<IngestFormat, RefusalCounts>>;
}

export class Metrics {
  readonly registry = new client.Registry();
  readonly ingestEvents: client.Counter<'endpoint'>;
  readonly ingestBytes: client.Counter<'endpoint'>;
  readonly ingestErrors: client.Counter<'endpoint' | 'code'>;
  readonly ingestRequests: client.Counter<'endpoint'>;
  readonly ingestRefused: client.Counter<'reason' | 'format'>;
  readonly httpRequests: client.Counter<'method' | 'route' | 'status'>;
  readonly flushDuration: client.Histogram;
  readonly flushEvents: client.Counter;
  readonly compactionDuration: client.Histogram;
  readonly compactions: client.Counter;
  readonly retentionSegments: client.Counter;
  readonly storageErrors: client.Counter<'phase'>;
  /** Audit log entries this node wrote (node/audit/audit-log.ts), and those it could not store. */
  readonly auditEntries: client.Counter<'action'>;
  readonly auditFailures: client.Counter<'action'>;

  constructor(engine: () => StorageEngine | null) {
    const registers = [this.registry];
    client.collectDefaultMetrics({ register: this.registry, prefix: 'trawl_' });
    this.ingestEvents = new client.Counter({
      name: 'trawl_ingest_events_total',
      help: 'Events accepted, by ingest endpoint',
      labelNames: ['endpoint'],
      registers,
    });
    this.ingestBytes = new client.Counter({
      name: 'trawl_ingest_bytes_total',
      help: 'Request body bytes received (after decompression), by ingest endpoint',
      labelNames: ['endpoint'],
      registers,
    });
    this.ingestErrors = new client.Counter({
      name: 'trawl_ingest_errors_total',
      help: 'Rejected ingest requests and failed items, by endpoint and error code',
      labelNames: ['endpoint', 'code'],
      registers,
    });
    this.auditEntries = new client.Counter({
      name: 'trawl_audit_entries_total',
      help: 'Audit log entries stored by this node, by action',
      labelNames: ['action'],
      registers,
    });
    this.auditFailures = new client.Counter({
      name: 'trawl_audit_write_failures_total',
      help: 'Audit log entries this node could not store (the error is logged), by action',
      labelNames: ['action'],
      registers,
    });
    this.ingestRequests = new client.Counter({
      name: 'trawl_ingest_requests_total',
      help: 'Ingest requests, by endpoint',
      labelNames: ['endpoint'],
      registers,
    });
    this.ingestRefused = new client.Counter({
      name: 'trawl_ingest_events_refused_total',
      help: 'Events refused at ingest, each with its reason in the answer, by reason and format',
      labelNames: ['reason', 'format'],
      registers,
    });
    // Every series from the start, so that the first refusal is an increase a rate sees.
    for (const format of INGEST_FORMATS) for (const reason of REFUSAL_REASONS) this.ingestRefused.inc({ reason, format }, 0);
    this.httpRequests = new client.Counter({
      name: 'trawl_http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.flushDuration = new client.Histogram({
      name: 'trawl_flush_duration_seconds',
      help: 'Time to turn one write-buffer generation into segments',
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.flushEvents = new client.Counter({
      name: 'trawl_flush_events_total',
      help: 'Events moved from the write buffer into segments',
      registers,
    });
    this.compactionDuration = new client.Histogram({
      name: 'trawl_compaction_duration_seconds',
      help: 'Time of one segment merge',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.compactions = new client.Counter({ name: 'trawl_compactions_total', help: 'Segment merges', registers });
    this.retentionSegments = new client.Counter({
      name: 'trawl_retention_segments_deleted_total',
      help: 'Segments dropped by retention',
      registers,
    });
    this.storageErrors = new client.Counter({
      name: 'trawl_storage_errors_total',
      help: 'Background storage failures by phase (flush, compaction)',
      labelNames: ['phase'],
      registers,
    });
    const gauge = (name: string, help: string, read: (engine: StorageEngine) => number): void => {
      new client.Gauge({
        name,
        help,
        registers,
        collect() {
          const current = engine();
          if (current !== null) this.set(read(current));
        },
      });
    };
    gauge('trawl_buffered_events', 'Acknowledged events not yet in segments', (e) => e.buffer.bufferedEvents);
    gauge('trawl_buffered_bytes', 'Raw text held by the write buffer', (e) => e.buffer.bufferedBytes);
    gauge('trawl_segments', 'Stored segments', (e) => e.store.size);
    gauge(
      'trawl_events_stored',
      'Events of the user indexes stored (segments and write buffer); audit log entries are trawl_audit_entries_total',
      (e) => e.stats().user.totalEvents,
    );
    gauge('trawl_segment_bytes', 'Compressed bytes of all segments', (e) => e.stats().segmentBytes);
  }

  /** A counter that reports a total read at each scrape (a total that only grows; a smaller reading is ignored). */
  private monotonicCounter(name: string, help: string, read: () => number): void {
    let reported = 0;
    new client.Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        const now = read();
        if (now > reported) this.inc(now - reported);
        reported = Math.max(reported, now);
      },
    });
  }

  /**
   * The query workers' block cache (storage/segment/payload-cache.ts): hits and misses as
   * counters, the bytes held as a gauge, read from `counters` at each scrape.
   */
  watchBlockCache(counters: () => { hits: number; misses: number; bytes: number }): void {
    const registers = [this.registry];
    this.monotonicCounter(
      'trawl_block_cache_hits_total',
      'Column blocks the query workers read from their block cache',
      () => counters().hits,
    );
    this.monotonicCounter(
      'trawl_block_cache_misses_total',
      'Column blocks the query workers decompressed into their block cache',
      () => counters().misses,
    );
    new client.Gauge({
      name: 'trawl_block_cache_bytes',
      help: 'Decompressed column block bytes the query workers hold',
      registers,
      collect() {
        this.set(counters().bytes);
      },
    });
  }

  /** Live tail: the sessions open on this node, the listeners of its ingest, and the live results dropped for slow sessions. */
  /** `trawl_memory_bytes{part}` and `trawl_memory_max_bytes{part}` from the node's memory report (node/app/memory-parts.ts). */
  watchMemory(report: () => Promise<{ parts: Record<string, { bytes: number; max_bytes: number | null }> }>): void {
    const registers = [this.registry];
    new client.Gauge({
      name: 'trawl_memory_bytes',
      help: "Memory of the node's parts, in bytes (docs/api.md, /status memory)",
      labelNames: ['part'],
      registers,
      async collect() {
        for (const [part, { bytes }] of Object.entries((await report()).parts)) this.set({ part }, bytes);
      },
    });
    new client.Gauge({
      name: 'trawl_memory_max_bytes',
      help: 'The configured bound of each memory part that has one, in bytes',
      labelNames: ['part'],
      registers,
      async collect() {
        for (const [part, { max_bytes }] of Object.entries((await report()).parts)) if (max_bytes !== null) this.set({ part }, max_bytes);
      },
    });
  }

  /** How ingest and compaction yielded to queries (node/app/work-shares.ts). */
  watchShares(status: () => { ingest_refused_for_queries: number; background_paused_ms: number }): void {
    this.monotonicCounter(
      'trawl_ingest_refused_for_queries_total',
      'Ingest requests answered 503 BACKPRESSURE because queries were running and ingest had taken its share (server.ingest_share)',
      () => status().ingest_refused_for_queries,
    );
    this.monotonicCounter(
      'trawl_background_paused_seconds_total',
      'Time compaction waited for running queries before its next merge (at most server.background_pause each time)',
      () => status().background_paused_ms / 1000,
    );
  }

  watchTail(status: () => { active_sessions: number; subscriber_count: number; total_dropped_events: number }): void {
    const registers = [this.registry];
    new client.Gauge({
      name: 'trawl_tail_sessions',
      help: 'Live tail sessions open on this node',
      registers,
      collect() {
        this.set(status().active_sessions);
      },
    });
    new client.Gauge({
      name: 'trawl_tail_subscribers',
      help: "Listeners of this node's ingest: its live tail sessions and the other members' subscriptions",
      registers,
      collect() {
        this.set(status().subscriber_count);
      },
    });
    let reported = 0;
    new client.Counter({
      name: 'trawl_tail_dropped_events_total',
      help: 'Live tail results dropped because their session fell behind',
      registers,
      collect() {
        const now = status().total_dropped_events;
        if (now > reported) this.inc(now - reported);
        reported = Math.max(reported, now);
      },
    });
  }

  /** The worker threads of each pool (`server.*_workers`, or sized from the cores). */
  workerThreads(counts: Record<string, number>): void {
    const gauge = new client.Gauge({
      name: 'trawl_worker_threads',
      help: 'Worker threads by pool',
      labelNames: ['pool'],
      registers: [this.registry],
    });
    for (const [pool, count] of Object.entries(counts)) gauge.set({ pool }, count);
  }

  /** Subscribes to the engine's background events. */
  watch(engine: StorageEngine): void {
    engine.on('flush', (result: { events: number; durationMs: number }) => {
      this.flushDuration.observe(result.durationMs / 1000);
      this.flushEvents.inc(result.events);
    });
    engine.on('compaction', (manifest: { duration_ms: number }) => {
      this.compactionDuration.observe(manifest.duration_ms / 1000);
      this.compactions.inc();
    });
    engine.on('retention', (result: { segments: number }) => this.retentionSegments.inc(result.segments));
    engine.on('error', (_error: Error, phase: string) => this.storageErrors.inc({ phase }));
  }

  /** Counts one request's refused events. */
  refused(format: IngestFormat, counts: RefusalCounts): void {
    for (const reason of REFUSAL_REASONS) {
      const count = counts[reason];
      if (count !== undefined && count > 0) this.ingestRefused.inc({ reason, format }, count);
    }
  }

  async refusedEvents(): Promise<RefusedEvents> {
    const out: RefusedEvents = {
      total: 0,
      by_reason: Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, 0])) as Record<RefusalReason, number>,
      by_format: {},
    };
    for (const { value, labels } of (await this.ingestRefused.get()).values) {
      if (value === 0) continue;
      const reason = labels.reason as RefusalReason;
      const format = labels.format as IngestFormat;
      out.total += value;
      out.by_reason[reason] += value;
      (out.by_format[format] ??= {})[reason] = value;
    }
    return out;
  }

  /** A JSON view of a few counters for `GET /api/v1/metrics`. */
  async snapshot(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const metric of await this.registry.getMetricsAsJSON()) {
      if (!metric.name.startsWith('trawl_') || metric.name.startsWith('trawl_process') || metric.name.startsWith('trawl_nodejs')) {
        continue;
      }
      if (String(metric.type) === 'counter' || String(metric.type) === 'gauge') {
        out[metric.name] = metric.values.reduce((sum, value) => sum + value.value, 0);
      }
    }
    return out;
  }
}

/** Hints held by target, as the cluster metrics read them at each scrape. */
export interface PendingHints {
  pendingByTarget(): Map<string, number>;
  pendingBytes(target: string): number;
  /** For each target hints are pending for anywhere: how many nodes hold them (this one and the peers heard from). */
  holdersByTarget(): Map<string, number>;
}

/**
 * The metrics of a node in a cluster (registered only there): its calls to peers, where each
 * ingest request's shares went, the hints it holds and replays, and the writes peers sent it.
 */
export class ClusterMetrics {
  readonly grpcCalls: client.Counter<'service' | 'method' | 'outcome'>;
  readonly grpcCallDuration: client.Histogram<'service' | 'method'>;
  readonly writeShares: client.Counter<'outcome'>;
  readonly writeShareEvents: client.Counter<'outcome'>;
  readonly receivedEvents: client.Counter<'kind'>;
  readonly refusedWrites: client.Counter<'method' | 'reason'>;
  readonly hintsStored: client.Counter<'target'>;
  readonly hintsReplayed: client.Counter<'target'>;
  readonly hintBytesReplayed: client.Counter<'target'>;
  readonly peerRefusals: client.Counter<'method' | 'reason'>;
  /** Calls refused by the check of cluster.secret (node/cluster/grpc/secret-guard.ts). */
  readonly unauthenticated: client.Counter<'service' | 'method' | 'reason'>;
  /** gRPC connections refused in their TLS handshake (node/cluster/grpc/tls-refusals.ts). */
  readonly tlsRefused: client.Counter;

  constructor(registry: client.Registry, hints: PendingHints) {
    const registers = [registry];
    this.grpcCalls = new client.Counter({
      name: 'trawl_grpc_client_calls_total',
      help: 'Calls this node made to peers, by service, method and outcome (ok, unreachable, refused, cancelled)',
      labelNames: ['service', 'method', 'outcome'],
      registers,
    });
    this.grpcCallDuration = new client.Histogram({
      name: 'trawl_grpc_client_call_duration_seconds',
      help: 'Duration of calls this node made to peers, by service and method (a ShardQuery Fragments call stays open while it carries fragments, and ends after a minute without one)',
      labelNames: ['service', 'method'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.writeShares = new client.Counter({
      name: 'trawl_write_shares_total',
      help: "Owners' shares of ingest requests taken here, by outcome: local (stored here), sent (stored by a live owner), hinted (kept for a down owner), refused (by a live owner, or here under backpressure), failed (neither stored nor hinted)",
      labelNames: ['outcome'],
      registers,
    });
    this.writeShareEvents = new client.Counter({
      name: 'trawl_write_share_events_total',
      help: 'Events of the shares of trawl_write_shares_total, by the same outcomes',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['local', 'sent', 'hinted', 'refused', 'failed']) {
      this.writeShares.inc({ outcome }, 0);
      this.writeShareEvents.inc({ outcome }, 0);
    }
    this.receivedEvents = new client.Counter({
      name: 'trawl_shard_write_received_events_total',
      help: 'Events peers sent this node to store, by kind: write (a share of a request) or hint (a replayed hint)',
      labelNames: ['kind'],
      registers,
    });
    this.refusedWrites = new client.Counter({
      name: 'trawl_shard_write_refused_total',
      help: "ShardWrite calls this node refused, by method (Write, ReplayHint) and reason (the refusal's trawl-refusal: invalid-record, not-owner, unknown-origin, backpressure, ...)",
      labelNames: ['method', 'reason'],
      registers,
    });
    this.hintsStored = new client.Counter({
      name: 'trawl_hints_stored_total',
      help: 'Hints this node kept for down owners, by target node',
      labelNames: ['target'],
      registers,
    });
    this.hintsReplayed = new client.Counter({
      name: 'trawl_hints_replayed_total',
      help: 'Hints this node replayed to their returned owner and dropped, by target node',
      labelNames: ['target'],
      registers,
    });
    this.hintBytesReplayed = new client.Counter({
      name: 'trawl_hints_replayed_bytes_total',
      help: 'Bytes of the hints of trawl_hints_replayed_total',
      labelNames: ['target'],
      registers,
    });
    this.peerRefusals = new client.Counter({
      name: 'trawl_grpc_refusals_total',
      help: "Peers' membership calls this node refused, by method and reason (proto/README.md lists the reasons)",
      labelNames: ['method', 'reason'],
      registers,
    });
    this.unauthenticated = new client.Counter({
      name: 'trawl_grpc_unauthenticated_total',
      help: 'Calls to this node refused for lacking proof of cluster.secret, by service, method and reason (no-proof, malformed-proof, stale-proof, wrong-proof)',
      labelNames: ['service', 'method', 'reason'],
      registers,
    });
    this.tlsRefused = new client.Counter({
      name: 'trawl_grpc_tls_refused_total',
      help: 'Connections to the gRPC port refused in their TLS handshake (not TLS, no client certificate, or one tls.ca_file did not sign)',
      registers,
    });
    // A target whose hints are all replayed reads 0, not absent, so the drain shows on a graph.
    const targets = new Set<string>();
    const pendingGauge = (name: string, help: string, read: (target: string, count: number) => number): void => {
      new client.Gauge({
        name,
        help,
        labelNames: ['target'],
        registers,
        collect() {
          const pending = hints.pendingByTarget();
          for (const target of pending.keys()) targets.add(target);
          for (const target of targets) this.set({ target }, read(target, pending.get(target) ?? 0));
        },
      });
    };
    pendingGauge('trawl_hints_pending', 'Hints this node holds for a down (or returning) owner, by target node', (_target, count) => count);
    pendingGauge('trawl_hints_pending_bytes', 'Bytes of the hints this node holds, by target node', (target) => hints.pendingBytes(target));
    const holderTargets = new Set<string>();
    new client.Gauge({
      name: 'trawl_hints_pending_holders',
      help: 'Nodes holding hints for a target, as this node knows (itself and each peer by its last heartbeat); while above 0 the target is not asked for keys',
      labelNames: ['target'],
      registers,
      collect() {
        const holders = hints.holdersByTarget();
        for (const target of holders.keys()) holderTargets.add(target);
        for (const target of holderTargets) this.set({ target }, holders.get(target) ?? 0);
      },
    });
  }

  /** Counts one finished call to a peer (grpc/call-observer.ts). */
  call(service: string, method: string, outcome: string, seconds: number): void {
    this.grpcCalls.inc({ service, method, outcome });
    this.grpcCallDuration.observe({ service, method }, seconds);
  }

  /** Counts one owner's share of an ingest request. */
  share(outcome: 'local' | 'sent' | 'hinted' | 'refused' | 'failed', events: number): void {
    this.writeShares.inc({ outcome });
    this.writeShareEvents.inc({ outcome }, events);
  }
}
