/**
 * A shard session: the shard part of one query over the units it is given (decoded segment
 * blocks, buffered rows), accumulating what the coordinator merges. It runs inside a query
 * worker thread; the same code could run on another node.
 */
import type { Column, ColumnBatch } from '../../storage/column';
import type { ScanRequest, ScanStats } from '../../storage/scan';
import { decodeColumns, emptyScanStats, sliceColumns, timeSlice } from '../../storage/scan';
import { INDEX_COLUMN, RAW_COLUMN, TIME_COLUMN } from '../../storage/event';
import { chunkBatch, type ChunkScan } from '../../storage/buffer/chunk-read';
import { ColumnEncoding, decodeColumnBlockMatching, readBlockHeader } from '../../storage/segment/column-codec';
import { holdsFieldRefs } from '../../storage/segment/raw-refs';
import { decodeRawRefsMatching, fieldSource, type StoredColumns } from '../../storage/segment/row-block';
import { selectPacked } from '../../storage/segment/packed-select';
import { cachesColumn, nameBlock, payloadCacheHits, storedBlockName } from '../../storage/segment/payload-cache';
import { LiteralByteSearch } from '../../storage/segment/literal-search';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import { scanRequestOf } from './scan-request';
import type { QueryPlan } from '../plan/plan';
import { applyBatchOp } from './batch-ops';
import { NewestRows } from './newest-rows';
import { SortedRows, type KeyedRow, type SortKey } from './sorted-rows';
import { valueAt } from './access';
import { materialize, rowBytes, type TimedRow } from './rows';
import { StatsAccumulator, type PartialStats } from './stats';
import { SelectionScratch } from './vectors';
import type { CompiledExpr, NumberComparison } from './compiled';

/** Counters of one shard operator, when profiling. */
export interface OpStats {
  rowsIn: number;
  rowsOut: number;
  ms: number;
}

/**
 * One segment row block as a session receives it: the compressed buffers of the stored columns
 * (null for a column the segment lacks) and the little of the header that decoding needs.
 */
export interface BlockInput {
  index: string;
  /** The segment's id and the row block's number: with a column's name, they name a stored block for good. */
  segment: string;
  block: number;
  rows: number;
  stored: string[];
  buffers: (Uint8Array | null)[];
  /** The frames of a framed `_raw` that may match (null: all); the other frames' rows cannot. */
  rawFrames: number[] | null;
  /** Per entry of `rawFrames`: a raw token only the frame's skeletons can hold, or -1 (scan.ts SegmentUnit). */
  rawOwnTokens?: number[] | null;
  /** Positions in `stored` left out (null in `buffers`) because the worker holds them (held-blocks.ts). */
  held?: number[];
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

/** Late string columns are decoded row by row when at most 1/FEW_ROWS of the batch's rows passed the filters. */
const FEW_ROWS = 16;

/** The selected batch rows as ascending block rows (the batch starts at block row `offset`). */
function blockRows(sel: Uint32Array, n: number, offset: number): Uint32Array {
  const rows = new Uint32Array(n);
  let ascending = true;
  for (let i = 0; i < n; i++) {
    rows[i] = sel[i] + offset;
    if (i > 0 && rows[i] < rows[i - 1]) ascending = false;
  }
  // Filters keep the selection's order, so it is almost always ascending already.
  return ascending ? rows : rows.sort();
}

/**
 * Whether anything after the first shard operator reads `field`: a later operator, the stats
 * keys and aggregates, or the rows handed over (every field of an event).
 */
function readAfterFirst(plan: QueryPlan, field: string): boolean {
  const boundary = plan.boundary;
  if (boundary.kind !== 'stats') return true;
  const reads = (expr: CompiledExpr | null): boolean => expr !== null && expr.fields.has(field);
  const later = plan.shardOps.slice(1).some((op) => {
    if (op.kind === 'filter') return reads(op.predicate);
    if (op.kind === 'extend') return op.assignments.some((assignment) => reads(assignment.expr));
    // parse, keep, drop and rename name fields (or globs): assume they touch it.
    return true;
  });
  return later || boundary.spec.keys.some((key) => reads(key.expr)) || boundary.spec.aggregates.some((aggregate) => reads(aggregate.arg));
}

export class ShardSession {
  readonly request: ScanRequest;
  readonly stats: ScanStats;
  private matched = 0;
  private memoryBytes = 0;
  private readonly newest: NewestRows | null;
  private readonly sorted: { rows: SortedRows; keys: SortKey[] } | null;
  private readonly all: TimedRow[] | null;
  /** Export mode: rows found and not yet handed over by an ack. */
  private streamed: TimedRow[] = [];
  private readonly accumulator: StatsAccumulator | null;
  private readonly opStats: OpStats[] | null;
  private readonly keepNulls: boolean;

  constructor(
    readonly plan: QueryPlan,
    options: { limit: number; offset: number; profile: boolean; trace: boolean; stream: boolean },
  ) {
    this.request = scanRequestOf(plan);
    this.stats = emptyScanStats(options.trace);
    const boundary = plan.boundary;
    this.stream = options.stream && boundary.kind === 'events';
    this.newest =
      this.stream ? null : boundary.kind === 'events' ? new NewestRows(options.offset + options.limit) : boundary.kind === 'head' ? new NewestRows(boundary.count) : null;
    this.sorted =
      boundary.kind === 'sorted'
        ? { rows: new SortedRows(boundary.keys.map((key) => key.direction), boundary.count ?? options.offset + options.limit), keys: boundary.keys }
        : null;
    this.all = boundary.kind === 'rows' ? [] : null;
    this.accumulator = boundary.kind === 'stats' ? new StatsAccumulator(boundary.spec) : null;
    this.opStats = options.profile ? [] : null;
    this.keepNulls = plan.shardOps.some((op) => op.kind === 'keep');
    let lead = 0;
    while (lead < plan.shardOps.length && plan.shardOps[lead].kind === 'filter') {
      const op = plan.shardOps[lead];
      if (op.kind === 'filter') for (const field of op.predicate.fields) this.filterFields.add(field);
      lead++;
    }
    this.leadingFilters = lead;
    const first = plan.shardOps[0];
    const comparison = lead > 0 && first.kind === 'filter' ? first.predicate.numberComparison : undefined;
    this.packedFilter = comparison !== undefined && !readAfterFirst(plan, comparison.field) ? comparison : null;
    // Longest anchor first: it is searched over the whole text, the others only in its hit rows.
    this.rawSearches = plan.scan.rawLiterals
      .map((literal) => LiteralByteSearch.of(literal))
      .filter((search): search is LiteralByteSearch => search !== null)
      .sort((a, b) => b.length - a.length);
  }

  /** Byte searches every row must pass before its `_raw` becomes a string (empty: no such filter). */
  private readonly rawSearches: LiteralByteSearch[];

  /** Leading `where`/`search` operators, and the fields they read (decoded first). */
  private readonly leadingFilters: number;
  private readonly filterFields = new Set<string>();
  /**
   * The first leading filter when it is `field <op> number` and nothing after it reads the field:
   * over a packed integer block it runs on the stored bytes, and the field is never decoded.
   */
  private readonly packedFilter: NumberComparison | null;

  private readonly stream: boolean;

  private readonly selections = new SelectionScratch();

  /**
   * One segment block, decoded late: the columns the leading filters read first, and the rest only
   * when some row passes them (most blocks of a selective query are never fully decoded).
   */
  processBlock(input: BlockInput): void {
    const hitsBefore = payloadCacheHits();
    this.nameBlocks(input);
    this.processNamedBlock(input);
    this.stats.blocksCached += payloadCacheHits() - hitsBefore;
  }

  /** Names the block's column buffers for this thread's payload cache (cachesColumn: not `_raw`). */
  private nameBlocks(input: BlockInput): void {
    input.stored.forEach((name, i) => {
      const buffer = input.buffers[i];
      if (buffer !== null && cachesColumn(name)) nameBlock(buffer, storedBlockName(input.segment, input.block, name));
    });
  }

  /** processBlock, once the block's buffers are named. */
  private processNamedBlock(input: BlockInput): void {
    const { rows, stored, buffers } = input;
    const packedAt = this.packedFilterAt(stored, buffers);
    const early = this.earlyColumns(stored, packedAt === -1 ? null : stored[packedAt]);
    // A `_raw` the leading filters search is searched as bytes first: only candidate rows get strings.
    const searched = this.rawSearches.length > 0 || input.rawFrames !== null;
    const rawAt = searched && early.has(RAW_COLUMN) ? stored.indexOf(RAW_COLUMN) : -1;
    const rawBuffer = rawAt === -1 ? null : buffers[rawAt];
    const block: StoredColumns = { names: stored, buffers };
    // Fields a `_raw` search decoded at its candidate rows; every row read later is one of those.
    const searchedFields = new Map<string, Column>();
    const raw = rawBuffer === null ? null : this.searchRaw(rawBuffer, rows, input, block, searchedFields);
    const earlyNames = stored.filter((name) => early.has(name) && (raw === null || name !== RAW_COLUMN));
    const columns = decodeColumns(
      rows,
      earlyNames,
      earlyNames.map((name) => buffers[stored.indexOf(name)]),
      undefined,
      block,
    );
    if (raw !== null) columns.set(RAW_COLUMN, raw.column);
    if (this.request.columns === null || this.request.columns.includes(INDEX_COLUMN)) {
      columns.set(INDEX_COLUMN, { kind: 'const', value: input.index, length: rows });
    }
    const { start, end } = timeSlice(columns.get(TIME_COLUMN), rows, this.request);
    this.stats.rowsRead += end - start;
    const batch: ColumnBatch = { rowCount: end - start, columns: sliceColumns(columns, rows, start, end) };
    const candidates = raw?.rows === undefined || raw.rows === null ? null : { rows: raw.rows, offset: start };
    const comparison = this.packedFilter;
    const prefilter =
      packedAt === -1 || comparison === null
        ? null
        : (sel: Uint32Array, n: number): number => {
            const kept = selectPacked(buffers[packedAt] as Uint8Array, comparison.op, comparison.constant, sel, n, start);
            if (kept === null) throw new Error('packed filter: the block is not packed integers');
            return kept;
          };
    this.processLate(batch, candidates, prefilter, (sel, n) => {
      const skip = (name: string): boolean => early.has(name) || (packedAt !== -1 && name === stored[packedAt]);
      const late = stored.filter((name) => !skip(name));
      const lateBuffers = buffers.filter((_, i) => !skip(stored[i]));
      if (late.length === 0) return [];
      // Few rows passed the filters: string columns make strings for those rows only.
      const only = n * FEW_ROWS <= batch.rowCount ? blockRows(sel, n, start) : undefined;
      return sliceColumns(decodeColumns(rows, late, lateBuffers, only, block, searchedFields), rows, start, end);
    });
  }

  /**
   * The rows of a block's `_raw` that may match the leading searches, as strings. A `_raw` with
   * field references is searched in its skeletons where a frame's filters allow it (row-block.ts).
   */
  private searchRaw(
    buffer: Uint8Array,
    rows: number,
    input: BlockInput,
    block: StoredColumns,
    decodedFields: Map<string, Column>,
  ): { column: Column; rows: Uint32Array | null } {
    if (!holdsFieldRefs(buffer)) return decodeColumnBlockMatching(buffer, this.rawSearches, input.rawFrames);
    const own = input.rawOwnTokens ?? null;
    const searches = own === null ? null : own.map((token) => (token === -1 ? null : this.ownTokenSearch(token)));
    // decodeRawRefsMatching indexes by frame: spread the per-chosen-frame searches out.
    const byFrame: (LiteralByteSearch | null)[] = [];
    input.rawFrames?.forEach((frame, i) => (byFrame[frame] = searches?.[i] ?? null));
    return decodeRawRefsMatching(buffer, rows, input.rawFrames, byFrame, fieldSource(block, undefined, decodedFields), this.longestRawToken);
  }

  private readonly ownTokenSearches = new Map<number, LiteralByteSearch | null>();

  /** The longest token every match's `_raw` holds (null: none): frames with field references look for it in their values too. */
  private get longestRawToken(): string | null {
    const tokens = this.request.rawTokens ?? [];
    return tokens.length === 0 ? null : tokens.reduce((a, b) => (b.length > a.length ? b : a));
  }

  /** The byte search of the request's raw token `index`. */
  private ownTokenSearch(index: number): LiteralByteSearch | null {
    let search = this.ownTokenSearches.get(index);
    if (search === undefined) {
      const token = this.request.rawTokens?.[index];
      search = token === undefined ? null : LiteralByteSearch.of(token);
      this.ownTokenSearches.set(index, search);
    }
    return search;
  }

  /** A buffered chunk, decoded late as processBlock does. */
  processChunk(chunk: EventChunk, scan: ChunkScan): void {
    const names = scan.columns ?? [TIME_COLUMN, RAW_COLUMN, INDEX_COLUMN, ...chunk.fields.map((field) => field.name)];
    const early = this.earlyColumns(names, null);
    const batch = chunkBatch(chunk, { ...scan, columns: [...early] });
    this.processLate(batch, null, null, () => {
      const late = names.filter((name) => !early.has(name));
      return late.length === 0 ? [] : [...chunkBatch(chunk, { ...scan, columns: late }).columns].filter(([name]) => name !== TIME_COLUMN);
    });
  }

  /**
   * The columns to decode before the leading filters run: what they read, and `_time` (all without
   * filters). `packed` is the field the packed filter reads from the stored bytes instead.
   */
  private earlyColumns(names: readonly string[], packed: string | null): Set<string> {
    const lead = this.leadingFilters;
    return new Set(names.filter((name) => lead === 0 || (this.filterFields.has(name) && name !== packed) || name === TIME_COLUMN));
  }

  /** Where the packed filter's field is among the block's stored columns, when it is packed integers there; else -1. */
  private packedFilterAt(stored: readonly string[], buffers: readonly (Uint8Array | null)[]): number {
    if (this.packedFilter === null) return -1;
    const at = stored.indexOf(this.packedFilter.field);
    const buffer = at === -1 ? null : buffers[at];
    return buffer !== null && readBlockHeader(buffer).encoding === ColumnEncoding.NumberPacked ? at : -1;
  }

  /**
   * Runs the leading filters on `batch`, then the rest of the operators once `decodeLate` has added
   * the other columns. With `candidates`, only those rows (block rows, less `offset`, the batch's
   * first row) can pass: the others are not selected at all. A `prefilter` stands in for the first
   * leading filter (the packed filter, on stored bytes).
   */
  private processLate(
    batch: ColumnBatch,
    candidates: { rows: Uint32Array; offset: number } | null,
    prefilter: ((sel: Uint32Array, n: number) => number) | null,
    decodeLate: (sel: Uint32Array, n: number) => Iterable<[string, Column]>,
  ): void {
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
    const newest = this.newest;
    if (newest === null || this.leadingFilters !== this.plan.shardOps.length || times === undefined || times.kind !== 'time') return n;
    const values = times.values;
    const floor = newest.minTime;
    let kept = 0;
    for (let i = 0; i < n; i++) if (values[sel[i]] > floor) sel[kept++] = sel[i];
    if (kept <= newest.capacity) return kept;
    const sorted = new Float64Array(kept);
    for (let i = 0; i < kept; i++) sorted[i] = values[sel[i]];
    sorted.sort();
    // The N-th newest time; rows tied with it all stay (NewestRows keeps N of them).
    const threshold = sorted[kept - newest.capacity];
    let narrowed = 0;
    for (let i = 0; i < kept; i++) if (values[sel[i]] >= threshold) sel[narrowed++] = sel[i];
    return narrowed;
  }

  /** True when every operator ran, the head is full and no selected row is newer than the rows it keeps. */
  private cannotEnterHead(sel: Uint32Array, n: number, times: Column | undefined): boolean {
    if (this.leadingFilters !== this.plan.shardOps.length || this.newest === null || !this.newest.full) return false;
    let newest = -Infinity;
    if (times !== undefined && times.kind === 'time') for (let i = 0; i < n; i++) newest = Math.max(newest, times.values[sel[i]]);
    return newest <= this.newest.minTime;
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

  /** Hands the selected rows to the boundary (stats, newest rows, sorted rows, all rows or the export stream). */
  private collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    this.matched += n;
    if (n === 0) return;
    if (this.accumulator !== null) {
      this.accumulator.add(batch, sel, n, times);
      return;
    }
    const timeValues = times !== undefined && times.kind === 'time' ? times.values : null;
    if (this.sorted !== null) {
      this.collectSorted(batch, sel, n, timeValues, this.sorted);
      return;
    }
    const streamedFrom = this.streamed.length;
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const time = timeValues === null ? 0 : timeValues[row];
      if (this.newest !== null && !this.newest.accepts(time)) continue;
      const materialized = materialize(batch, row, this.keepNulls);
      if (this.stream) {
        this.streamed.push({ time, row: materialized });
        continue;
      }
      this.memoryBytes += rowBytes(materialized);
      if (this.newest !== null) this.newest.push({ time, row: materialized });
      else this.all?.push({ time, row: materialized });
    }
    if (this.stream) sortNewestFirst(this.streamed, streamedFrom);
  }

  /** The sort keys are evaluated for every selected row; only rows that enter the first N are built. */
  private collectSorted(batch: ColumnBatch, sel: Uint32Array, n: number, timeValues: Float64Array | null, sorted: { rows: SortedRows; keys: SortKey[] }): void {
    const keyColumns = sorted.keys.map((key) => key.expr.evaluate(batch, sel, n));
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const time = timeValues === null ? 0 : timeValues[row];
      const keys = keyColumns.map((column) => valueAt(column, row));
      if (!sorted.rows.accepts(keys, time)) continue;
      sorted.rows.push({ time, keys, row: materialize(batch, row, this.keepNulls) });
    }
  }

  /** What the session holds for its answer: rows kept, sorted rows, stats groups. */
  private heldBytes(): number {
    return this.memoryBytes + (this.sorted?.rows.bytes ?? 0) + (this.accumulator?.approximateBytes() ?? 0);
  }

  /** Progress since the previous ack, and (export mode) the rows found since then. */
  ack(): UnitAck {
    const rows = this.stream ? this.streamed : null;
    if (this.stream) this.streamed = [];
    return {
      matched: this.matched,
      rowsRead: this.stats.rowsRead,
      blocksCached: this.stats.blocksCached,
      full: this.newest?.full ?? false,
      minTime: this.newest?.minTime ?? -Infinity,
      memoryBytes: this.heldBytes(),
      rows,
    };
  }

  /** Rows kept so far, newest first (for previews). */
  preview(limit: number): TimedRow[] {
    if (this.newest === null) return [];
    return [...this.newest.rows].sort((a, b) => b.time - a.time).slice(0, limit);
  }

  finish(): ShardResult {
    return {
      matched: this.matched,
      newest: this.newest === null ? null : this.newest.sorted(),
      sorted: this.sorted === null ? null : this.sorted.rows.sorted(),
      all: this.all,
      partial: this.accumulator === null ? null : this.accumulator.toPartial(),
      opStats: this.opStats,
      stats: this.stats,
      memoryBytes: this.heldBytes(),
    };
  }
}

/** Sorts `rows[from..]` newest first, in place. */
function sortNewestFirst(rows: TimedRow[], from: number): void {
  if (rows.length - from < 2) return;
  const part = rows.slice(from).sort((a, b) => b.time - a.time);
  for (let i = 0; i < part.length; i++) rows[from + i] = part[i];
}
