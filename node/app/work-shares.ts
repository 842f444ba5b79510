/**
 * How ingest and background work share the node with queries, by rule. While no query runs here,
 * ingest takes the machine: the only bound is `ingest.max_buffered_events`. While one runs (a
 * query this node coordinates or a fragment it answers for another node):
 * - ingest keeps at most `server.ingest_share` of the parse workers busy (requests at once, at
 *   least one; as many more wait ready for a slot) and may fill that share of the write buffer's
 *   bound; a request beyond either is answered 503 BACKPRESSURE with Retry-After at once, before
 *   it is parsed, so a shipper backs off instead of queueing work in front of the queries;
 * - compaction (background work) does not start its next merge until the queries are done, or
 *   until it has waited `server.background_pause` for them, so that it can never fall behind for good.
 * Flushes are not held: they keep the write buffer, and so ingest, moving.
 */

export interface ShareSettings {
  /** `server.ingest_share`, above 0 and at most 1. */
  ingestShare: number;
  /** `server.background_pause` in milliseconds. */
  backgroundPauseMs: number;
  /** The parse workers (0: bodies are parsed on the main thread, one at a time counts as the pool). */
  ingestWorkers: number;
  /** `ingest.max_buffered_events`. */
  maxBufferedEvents: number;
}

/** How often a paused background task looks again whether the queries are done. */
const BACKGROUND_POLL_MS = 50;

export interface SharesStatus {
  queries_running: number;
  ingest_in_flight: number;
  ingest_waiting: number;
  /** Ingest requests refused because queries were running, since the start. */
  ingest_refused_for_queries: number;
  /** Time compaction waited for queries, since the start. */
  background_paused_ms: number;
}

export class WorkShares {
  private ingestInFlight = 0;
  /** Requests admitted to wait for a slot, first come first served. */
  private readonly waiting: (() => void)[] = [];
  private refusedForQueries = 0;
  private pausedMs = 0;

  constructor(
    private readonly queriesRunning: () => number,
    private readonly settings: () => ShareSettings,
    private readonly now: () => number = Date.now,
  ) {}

  get queriesActive(): boolean {
    return this.queriesRunning() > 0;
  }

  /** Ingest requests allowed at once now: null while no query runs (no bound but the write buffer's). */
  ingestLimit(): number | null {
    if (!this.queriesActive) return null;
    const { ingestShare, ingestWorkers } = this.settings();
    return Math.max(1, Math.floor(Math.max(1, ingestWorkers) * ingestShare));
  }

  /** The write buffer's bound for ingest now: its share of `ingest.max_buffered_events` while queries run. */
  bufferedEventsLimit(): number {
    const { maxBufferedEvents, ingestShare } = this.settings();
    return this.queriesActive ? Math.max(1, Math.floor(maxBufferedEvents * ingestShare)) : maxBufferedEvents;
  }

  /**
   * Admits an ingest request to parsing and storing: resolves with its release, or with null when
   * queries run and both the ingest share and its queue (as deep as the share: one request waits
   * ready for each slot, so the workers never idle between requests) are taken.
   */
  async admitIngest(): Promise<(() => void) | null> {
    const limit = this.ingestLimit();
    if (limit === null || this.ingestInFlight < limit) return this.take();
    if (this.waiting.length >= limit) {
      this.refusedForQueries++;
      return null;
    }
    // A waiter is handed its slot (already counted) by a release: there is always one in flight to come.
    return new Promise((resolve) => this.waiting.push(() => resolve(this.releaseOf())));
  }

  private take(): () => void {
    this.ingestInFlight++;
    return this.releaseOf();
  }

  /** The release of a slot counted in `ingestInFlight`: idempotent; it hands the slot to the next waiter the share allows. */
  private releaseOf(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.ingestInFlight--;
      for (;;) {
        const limit = this.ingestLimit();
        const next = this.waiting[0];
        if (next === undefined || (limit !== null && this.ingestInFlight >= limit)) return;
        this.waiting.shift();
        this.ingestInFlight++;
        next();
      }
    };
  }

  /** Counts a request refused at the buffer's share while queries ran. */
  refusedAtBuffer(): void {
    this.refusedForQueries++;
  }

  /** Resolves when background work may take its next step: no query runs, or it has waited `server.background_pause`. */
  async backgroundTurn(): Promise<void> {
    if (!this.queriesActive) return;
    const started = this.now();
    const { backgroundPauseMs } = this.settings();
    while (this.queriesActive && this.now() - started < backgroundPauseMs) {
      await new Promise((resolve) => setTimeout(resolve, BACKGROUND_POLL_MS).unref());
    }
    this.pausedMs += this.now() - started;
  }

  status(): SharesStatus {
    return {
      queries_running: this.queriesRunning(),
      ingest_in_flight: this.ingestInFlight,
      ingest_waiting: this.waiting.length,
      ingest_refused_for_queries: this.refusedForQueries,
      background_paused_ms: this.pausedMs,
    };
  }
}
