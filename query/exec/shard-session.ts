/**
 * A shard session: the shard part of one query over the units it is given (segment
 * blocks, buffered rows), accumulating what the coordinator merges. It runs inside a query
 * worker thread; the same code could run on another node.
 */
import type { Column, ColumnBatch } from '../../storage/core/column';
import type { ScanRequest, ScanStats } from '../../storage/scan';
import { emptyScanStats } from '../../storage/scan';
import { TIME_COLUMN } from '../../storage/core/event';
import type { ChunkScan } from '../../storage/buffer/chunk-read';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { BlockInput } from '../../storage/read/block-input';
import { BlockReader } from '../../storage/read/block-reader';
import type { CandidateRows, LateDecoder, LateRows, Prefilter } from '../../storage/read/late-rows';
import { scanRequestOf } from './scan-request';
import type { QueryPlan } from '../plan/plan';
import { applyBatchOp } from './batch-ops';
import { leadingFiltersOf } from './leading-filters';
import { nthNewestSelected } from './nth-newest';
import { resultSinkFor, type ResultSink } from './result-sinks';
import type { KeyedRow } from './sorted-rows';
import type { TimedRow } from './rows';
import type { PartialStats } from './stats';
import { SelectionScratch } from './vectors';

/**
 * A block's rows that passed every filter and may enter a newest-N boundary, their late columns
 * not decoded yet (processBlocks).
 */
interface DeferredRows {
  batch: ColumnBatch;
  sel: Uint32Array;
  n: number;
  times: Float64Array;
  decodeLate: LateDecoder;
}

/** Counters of one shard operator, when profiling. */
export interface OpStats {
  rowsIn: number;
  rowsOut: number;
  ms: number;
}

/** What a session hands back when the scan ends. */
export interface ShardResult {
  matched: number;
  newest: TimedRow[] | null;
  /** A `sorted` boundary's first rows in the sort order. */
  sorted: KeyedRow[] | null;
  all: TimedRow[] | null;
  partial: PartialStats | null;
  opStats: OpStats[] | null;
  stats: ScanStats;
  memoryBytes: number;
}

/** After each message: enough for the coordinator to stop early and report progress. */
export interface UnitAck {
  matched: number;
  rowsRead: number;
  /** Column blocks whose payload came from the worker's cache so far. */
  blocksCached: number;
  /** The session holds the newest N rows it needs; units older than `minTime` cannot change them. */
  full: boolean;
  minTime: number;
  memoryBytes: number;
  /** Export mode: the rows found since the previous ack, each unit's newest first. */
  rows: TimedRow[] | null;
}

/**
 * The operator pipeline of one query's shard part. Its BlockReader (storage/read/block-reader.ts)
 * decodes blocks and hands their rows back through takeLate.
 */
export class ShardSession implements LateRows {
  readonly request: ScanRequest;
  readonly stats: ScanStats;
  private matched = 0;
  /** Where the rows that pass every operator go: one sink for the plan's kind of boundary. */
  private readonly sink: ResultSink;
  private readonly opStats: OpStats[] | null;

  constructor(
    readonly plan: QueryPlan,
    options: { limit: number; offset: number; profile: boolean; trace: boolean; stream: boolean },
  ) {
    this.request = scanRequestOf(plan);
    this.stats = emptyScanStats(options.trace);
    const keepNulls = plan.shardOps.some((op) => op.kind === 'keep');
    this.sink = resultSinkFor(plan.boundary, { page: options.offset + options.limit, stream: options.stream, keepNulls });
    this.opStats = options.profile ? [] : null;
    const lead = leadingFiltersOf(plan);
    this.leadingFilters = lead.count;
    this.reader = new BlockReader(this.request, lead.filters, this.stats, this);
  }

  /** How many shard operators lead as filters (run before the late columns are decoded). */
  private readonly leadingFilters: number;
  private readonly reader: BlockReader;

  private readonly selections = new SelectionScratch();

  /** One segment block, decoded late (block-reader.ts). */
  processBlock(input: BlockInput): void {
    this.reader.readBlock(input);
  }

  /** Rows of the message in hand waiting for their late columns; null outside processBlocks. */
  private deferred: DeferredRows[] | null = null;

  /**
   * The segment blocks of one message. With a newest-N boundary the blocks' late columns are
   * decoded once the newest N of all of them are known: the newest blocks of several segments
   * (a cluster node's partitions of one bucket) overlap in time, and each alone would decode its
   * own newest N, inflating a `_raw` frame of every block for rows the next block outdates.
   */
  processBlocks(inputs: readonly BlockInput[]): void {
    if (inputs.length < 2 || !this.narrowsToNewest()) {
      for (const input of inputs) this.processBlock(input);
      return;
    }
    this.deferred = [];
    try {
      for (const input of inputs) this.processBlock(input);
      this.decodeDeferred(this.deferred);
    } finally {
      this.deferred = null;
    }
  }

  /** True when every operator is a leading filter and the boundary keeps the newest N rows. */
  private narrowsToNewest(): boolean {
    return this.sink.newest !== null && this.leadingFilters === this.plan.shardOps.length;
  }

  /** Decodes and collects the deferred rows that are among the newest N of them all (ties kept). */
  private decodeDeferred(pending: readonly DeferredRows[]): void {
    const capacity = this.sink.newest?.capacity ?? 0;
    const total = pending.reduce((sum, entry) => sum + entry.n, 0);
    let threshold = -Infinity;
    if (total > capacity) {
      const all = new Float64Array(total);
      let at = 0;
      for (const { sel, n, times } of pending) for (let i = 0; i < n; i++) all[at++] = times[sel[i]];
      all.sort();
      threshold = all[total - capacity];
    }
    for (const entry of pending) {
      const { batch, sel, times } = entry;
      let kept = 0;
      for (let i = 0; i < entry.n; i++) if (times[sel[i]] >= threshold) sel[kept++] = sel[i];
      this.matched += entry.n - kept;
      if (kept === 0) continue;
      for (const [name, column] of entry.decodeLate(sel, kept)) batch.columns.set(name, column);
      this.collect(batch, sel, kept, batch.columns.get(TIME_COLUMN));
    }
  }

  /** A buffered chunk, decoded late as processBlock does. */
  processChunk(chunk: EventChunk, scan: ChunkScan): void {
    this.reader.readChunk(chunk, scan);
  }

  /**
   * Runs the leading filters on `batch`, then the rest of the operators once `decodeLate` has added
   * the other columns. With `candidates`, only those rows (block rows, less `offset`, the batch's
   * first row) can pass: the others are not selected at all. A `prefilter` stands in for the first
   * leading filter (the packed filter, on stored bytes).
   */
  takeLate(batch: ColumnBatch, candidates: CandidateRows | null, prefilter: Prefilter | null, decodeLate: LateDecoder): void {
    if (batch.rowCount === 0) return;
    const lead = this.leadingFilters;
    const sel = this.selections.take(batch.rowCount);
    let selected = batch.rowCount;
    if (candidates !== null) {
      selected = 0;
      for (const row of candidates.rows) {
        const at = row - candidates.offset;
        if (at >= 0 && at < batch.rowCount) sel[selected++] = at;
      }
    }
    const times = batch.columns.get(TIME_COLUMN);
    if (prefilter !== null) selected = this.timed(0, selected, (count) => prefilter(sel, count));
    const n = this.runOps(batch, sel, selected, prefilter === null ? 0 : 1, lead);
    if (n === 0) return;
    if (this.cannotEnterHead(sel, n, times)) {
      this.matched += n;
      return;
    }
    // Only rows that can enter the newest N are decoded further; the others still count as matched.
    const entering = this.narrowToNewest(sel, n, times);
    this.matched += n - entering;
    if (entering === 0) return;
    if (this.deferred !== null && times !== undefined && times.kind === 'time') {
      this.deferred.push({ batch, sel: sel.slice(0, entering), n: entering, times: times.values, decodeLate });
      return;
    }
    for (const [name, column] of decodeLate(sel, entering)) batch.columns.set(name, column);
    this.collect(batch, sel, this.runOps(batch, sel, entering, lead, this.plan.shardOps.length), times);
  }

  /**
   * With every operator run and a newest-N boundary (a head, or an events page), narrows the
   * selection to the rows that can still enter it: newer than its floor, and the newest N of
   * those. A block of a few thousand matches then decodes its other columns for N rows, and once
   * the boundary is full, for the few rows newer than what it keeps. Returns the new count.
   */
  private narrowToNewest(sel: Uint32Array, n: number, times: Column | undefined): number {
    const newest = this.sink.newest;
    if (newest === null || this.leadingFilters !== this.plan.shardOps.length || times === undefined || times.kind !== 'time') return n;
    const values = times.values;
    const floor = newest.minTime;
    let kept = 0;
    for (let i = 0; i < n; i++) if (values[sel[i]] > floor) sel[kept++] = sel[i];
    if (kept <= newest.capacity) return kept;
    // A page of no rows (`limit 0`): each row only counts as matched.
    if (newest.capacity === 0) return 0;
    // The N-th newest time; rows tied with it all stay (NewestRows keeps N of them).
    const threshold = nthNewestSelected(values, sel, kept, newest.capacity);
    let narrowed = 0;
    for (let i = 0; i < kept; i++) if (values[sel[i]] >= threshold) sel[narrowed++] = sel[i];
    return narrowed;
  }

  /** True when every operator ran, the head is full and no selected row is newer than the rows it keeps. */
  private cannotEnterHead(sel: Uint32Array, n: number, times: Column | undefined): boolean {
    const head = this.sink.newest;
    if (this.leadingFilters !== this.plan.shardOps.length || head === null || !head.full) return false;
    let newest = -Infinity;
    if (times !== undefined && times.kind === 'time') for (let i = 0; i < n; i++) newest = Math.max(newest, times.values[sel[i]]);
    return newest <= head.minTime;
  }

  /** Runs shard operators [from, to) over the selection; returns the new count. */
  private runOps(batch: ColumnBatch, sel: Uint32Array, n: number, from: number, to: number): number {
    const plan = this.plan;
    for (let o = from; o < to && n > 0; o++) {
      const op = plan.shardOps[o];
      n = this.opStats === null ? applyBatchOp(op, batch, sel, n) : this.timed(o, n, (count) => applyBatchOp(op, batch, sel, count));
    }
    return n;
  }

  /** Runs shard operator `o` (as `run`) on `n` selected rows, counting its rows and time when profiling. */
  private timed(o: number, n: number, run: (n: number) => number): number {
    if (this.opStats === null) return run(n);
    const started = performance.now();
    const out = run(n);
    const entry = (this.opStats[o] ??= { rowsIn: 0, rowsOut: 0, ms: 0 });
    entry.rowsIn += n;
    entry.rowsOut += out;
    entry.ms += performance.now() - started;
    return out;
  }

  /** Hands the selected rows to the boundary's sink. */
  private collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    this.matched += n;
    if (n === 0) return;
    this.sink.collect(batch, sel, n, times);
  }

  /** Progress since the previous ack, and (export mode) the rows found since then. */
  ack(): UnitAck {
    const rows = this.sink.takeStreamed();
    const newest = this.sink.newest;
    return {
      matched: this.matched,
      rowsRead: this.stats.rowsRead,
      blocksCached: this.stats.blocksCached,
      full: newest?.full ?? false,
      minTime: newest?.minTime ?? -Infinity,
      memoryBytes: this.sink.heldBytes(),
      rows,
    };
  }

  /** Rows kept so far, newest first (for previews). */
  preview(limit: number): TimedRow[] {
    const newest = this.sink.newest;
    if (newest === null) return [];
    return [...newest.rows].sort((a, b) => b.time - a.time).slice(0, limit);
  }

  finish(): ShardResult {
    const boundary = this.sink.result();
    return {
      matched: this.matched,
      newest: boundary.newest,
      sorted: boundary.sorted,
      all: boundary.all,
      partial: boundary.partial,
      opStats: this.opStats,
      stats: this.stats,
      memoryBytes: this.sink.heldBytes(),
    };
  }
}
