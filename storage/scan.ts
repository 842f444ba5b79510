/**
 * The scan interface the query engine reads through: prune segments by index, time, column
 * statistics and bloom filter, then hand out column batches of only the requested columns,
 * restricted to the time range. Pruning decisions are counted (the `segments_skipped_*` counters).
 */
import { globMatches, isGlob } from './glob';
import { chunkBatch, rowsInRange } from './buffer/chunk-read';
import type { Column, ColumnBatch } from './core/column';
import type { EventChunk } from './buffer/event-chunk';
import { keyString } from './core/partition';
import { askedWhole, keyStringsOf } from './segment/segment-keys';
import type { FieldValue } from './core/event';
import { INDEX_COLUMN, isUserIndexName, TIME_COLUMN } from './core/event';
import type { MemTable } from './buffer/memtable';
import type { SegmentStore } from './lifecycle/segment-store';
import { bloomMayContainAll, framesToRead } from './segment/bloom';
import { decodeColumns } from './segment/row-block';
import { sliceColumns, timeSlice } from './read/batch-slice';
import { withRawRefs, type ColumnStats, type SegmentHeader } from './segment/header';
import type { WriteBuffer } from './buffer/write-buffer';

/** A pruning hint: rows can match only where the column holds one of `oneOf`, or a number in [min, max]. */
export interface ColumnPredicate {
  column: string;
  oneOf?: FieldValue[];
  min?: number;
  max?: number;
}

export interface ScanRequest {
  /** Accepts an index name. */
  index: (name: string) => boolean;
  /** Time range [fromMicros, toMicros). */
  fromMicros: number;
  toMicros: number;
  /** Columns to decode (null = all the segment has). `_time` is always readable. */
  columns: readonly string[] | null;
  /** Lower-cased tokens that must all occur (bloom pruning); the executor still checks rows. */
  tokens?: readonly string[];
  /** Lower-cased tokens every match's `_raw` holds (frame pruning of framed `_raw` blocks). */
  rawTokens?: readonly string[];
  /** All must be satisfiable for a segment to be read. */
  predicates?: readonly ColumnPredicate[];
  /** Segment order by time: newest first for `desc` (the default events order). */
  order?: 'asc' | 'desc';
  /**
   * Only these partition keys (keyString), or every key when absent: in a cluster a node is asked
   * for the keys it was chosen to answer, not for every key it holds a copy of.
   */
  keys?: ReadonlySet<string>;
}

export interface ScanStats {
  segmentsTotal: number;
  segmentsScanned: number;
  segmentsSkippedIndex: number;
  segmentsSkippedTime: number;
  segmentsSkippedStats: number;
  segmentsSkippedBloom: number;
  /** Row blocks inside read segments skipped because their time range is outside the query's. */
  blocksSkippedRange: number;
  /** Row blocks inside read segments skipped by their bloom filter. */
  blocksSkippedBloom: number;
  bufferedEvents: number;
  rowsRead: number;
  bytesRead: number;
  /** Column blocks whose decompressed payload a query worker had cached (segment/payload-cache.ts). */
  blocksCached: number;
  /** Why each segment was skipped or read (for `profile: trace`); filled only when requested. */
  decisions: { segment: string; decision: string }[] | null;
}

export function emptyScanStats(trace = false): ScanStats {
  return {
    segmentsTotal: 0,
    segmentsScanned: 0,
    segmentsSkippedIndex: 0,
    segmentsSkippedTime: 0,
    segmentsSkippedStats: 0,
    segmentsSkippedBloom: 0,
    blocksSkippedRange: 0,
    blocksSkippedBloom: 0,
    bufferedEvents: 0,
    rowsRead: 0,
    bytesRead: 0,
    blocksCached: 0,
    decisions: trace ? [] : null,
  };
}

/** One segment to read, with the row blocks that overlap the time range. */
export interface SegmentUnit {
  header: SegmentHeader;
  blocks: number[];
  /** Per entry of `blocks`: the `_raw` frames that may hold the raw tokens (null: all frames). */
  rawFrames?: (number[] | null)[];
  /**
   * Per entry of `blocks`, per entry of its `rawFrames`: the position in the request's `rawTokens`
   * of a token only the frame's skeletons can hold (bloom.ts FrameChoice), or -1.
   */
  rawOwnTokens?: (number[] | null)[];
}

/** One buffered chunk of a memtable (chunks are immutable; chunks appended after planning are not seen). */
export interface BufferedUnit {
  table: MemTable;
  chunk: number;
  /** The chunk's newest event: scans that want the newest rows first read the newest chunks first. */
  maxTime: number;
}

export interface ScanPlan {
  segments: SegmentUnit[];
  buffered: BufferedUnit[];
  stats: ScanStats;
  released: boolean;
}

/**
 * Globs (`*`, `?`) over index names; `*` alone matches every user index. An internal index (the
 * audit log, `_audit`) matches its exact name only, never a glob.
 */
export function indexMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.includes('*')) return isUserIndexName;
  const exact = new Set(patterns.filter((pattern) => !isGlob(pattern)));
  const globs = patterns.filter(isGlob);
  return (name) => exact.has(name) || (isUserIndexName(name) && globs.some((glob) => globMatches(glob, name)));
}

function statsAllow(column: ColumnStats | undefined, predicate: ColumnPredicate, rowCount: number): boolean {
  if (column === undefined || column.nullCount === rowCount) return false;
  if (predicate.oneOf !== undefined) {
    return predicate.oneOf.some((value) => {
      if (typeof value === 'string') {
        if (column.counts.string === 0) return false;
        if (column.dict !== null) return column.dict.includes(value);
        return column.minString !== null && column.maxString !== null && value >= column.minString && value <= column.maxString;
      }
      // A string that reads as a number compares equal to numbers: only numbers' range can rule a number out.
      if (column.counts.string > 0) return true;
      if (typeof value === 'number') {
        return column.counts.number > 0 && column.min !== null && column.max !== null && value >= column.min && value <= column.max;
      }
      return column.counts.boolean > 0;
    });
  }
  if (predicate.min !== undefined || predicate.max !== undefined) {
    // Strings that read as numbers compare as numbers, so a column holding strings cannot be ruled out.
    if (column.counts.string > 0) return true;
    if (column.min === null || column.max === null) return false;
    if (predicate.min !== undefined && column.max < predicate.min) return false;
    if (predicate.max !== undefined && column.min > predicate.max) return false;
  }
  return true;
}

/** Decides which segments and buffered rows a scan reads. Reads only bloom filters from disk. */
/** What planning looks up in a header on every query, made once per header (a header never changes). */
interface PlanningView {
  /** The segment's partition keys (one, or a storage group's: segment/segment-keys.ts). */
  keys: string[];
  columns: Map<string, ColumnStats>;
}
const planningViews = new WeakMap<SegmentHeader, PlanningView>();

function planningViewOf(header: SegmentHeader): PlanningView {
  let view = planningViews.get(header);
  if (view === undefined) {
    view = { keys: keyStringsOf(header), columns: new Map(header.columns.map((column) => [column.name, column])) };
    planningViews.set(header, view);
  }
  return view;
}

export async function planScan(store: SegmentStore, buffer: WriteBuffer, request: ScanRequest, trace = false): Promise<ScanPlan> {
  const stats = emptyScanStats(trace);
  const decide = (header: SegmentHeader, decision: string): void => {
    stats.decisions?.push({ segment: header.id, decision });
  };
  const survivors: SegmentUnit[] = [];
  const keys = request.keys;
  for (const header of store.all()) {
    stats.segmentsTotal++;
    const view = planningViewOf(header);
    if (!request.index(header.index) || (keys !== undefined && !askedWhole(header, view.keys, keys))) {
      stats.segmentsSkippedIndex++;
      decide(header, 'skipped: index');
      continue;
    }
    if (header.maxTime < request.fromMicros || header.minTime >= request.toMicros) {
      stats.segmentsSkippedTime++;
      decide(header, 'skipped: time');
      continue;
    }
    if (request.predicates?.some((predicate) => !statsAllow(view.columns.get(predicate.column), predicate, header.rowCount))) {
      stats.segmentsSkippedStats++;
      decide(header, 'skipped: column stats');
      continue;
    }
    const blocks: number[] = [];
    header.blocks.forEach((block, i) => {
      if (block.maxTime < request.fromMicros || block.minTime >= request.toMicros) stats.blocksSkippedRange++;
      else blocks.push(i);
    });
    survivors.push({ header, blocks });
  }
  // The buffer's chunks in the same tick as the segments: a flush publishes its segments and drops
  // its generation in one tick, so each row is seen exactly once. Read after the filter reads
  // below, a generation flushed meanwhile was in neither list and its rows went missing.
  const buffered: BufferedUnit[] = [];
  for (const generation of buffer.generations()) {
    for (const table of generation.tables.values()) {
      if (!request.index(table.key.index) || table.count === 0 || (keys !== undefined && !keys.has(keyString(table.key)))) continue;
      if (table.maxTime < request.fromMicros || table.minTime >= request.toMicros) continue;
      table.chunks.forEach((chunk, index) => {
        if (chunk.maxTime < request.fromMicros || chunk.minTime >= request.toMicros) return;
        buffered.push({ table, chunk: index, maxTime: chunk.maxTime });
        stats.bufferedEvents += chunk.count;
      });
    }
  }
  // Held from here until the scan ends (scanBatches or releasePlan), so compaction cannot delete them.
  store.acquire(survivors.map((unit) => unit.header.id));
  const tokens = request.tokens ?? [];
  const segments: SegmentUnit[] = [];
  if (tokens.length > 0 && survivors.length > 0) {
    // Each row block has its own bloom filter: keep the blocks that may hold every token.
    const blooms = await Promise.all(survivors.map((unit) => store.readBlooms(unit.header, unit.blocks)));
    const rawTokens = request.rawTokens ?? [];
    survivors.forEach((unit, i) => {
      const kept: number[] = [];
      const rawFrames: (number[] | null)[] = [];
      const rawOwnTokens: (number[] | null)[] = [];
      unit.blocks.forEach((block, j) => {
        const bloom = blooms[i][j];
        const meta = unit.header.blocks[block];
        if (bloom !== null && !bloomMayContainAll(bloom, meta.bloom, tokens)) return;
        // A framed `_raw`: only the frames whose filters may hold the raw tokens (none: skip the block).
        const choice = bloom !== null && meta.frames !== undefined && rawTokens.length > 0 ? framesToRead(bloom, meta, rawTokens) : null;
        if (choice !== null && choice.frames.length === 0) return;
        kept.push(block);
        rawFrames.push(choice?.frames ?? null);
        rawOwnTokens.push(choice?.ownTokens ?? null);
      });
      stats.blocksSkippedBloom += unit.blocks.length - kept.length;
      if (kept.length === 0) {
        stats.segmentsSkippedBloom++;
        decide(unit.header, 'skipped: bloom');
        store.release([unit.header.id]);
      } else segments.push({ header: unit.header, blocks: kept, rawFrames, rawOwnTokens });
    });
  } else segments.push(...survivors);
  for (const unit of segments) decide(unit.header, `read: ${unit.blocks.length}/${unit.header.blocks.length} blocks`);
  stats.segmentsScanned = segments.length;
  const direction = request.order === 'asc' ? 1 : -1;
  segments.sort((a, b) => direction * (a.header.maxTime - b.header.maxTime) || direction * a.header.id.localeCompare(b.header.id));

  return { segments, buffered, stats, released: false };
}

/**
 * The partition keys (keyString) this node holds data of, in an index and time range: what a
 * coordinator collects from every node before it chooses which node answers for which key.
 */
export function localKeys(
  store: SegmentStore,
  buffer: WriteBuffer,
  request: Pick<ScanRequest, 'index' | 'fromMicros' | 'toMicros'>,
): Set<string> {
  const keys = new Set<string>();
  for (const header of store.all()) {
    if (!request.index(header.index) || header.maxTime < request.fromMicros || header.minTime >= request.toMicros) continue;
    for (const key of planningViewOf(header).keys) keys.add(key);
  }
  for (const generation of buffer.generations()) {
    for (const table of generation.tables.values()) {
      if (table.count === 0 || !request.index(table.key.index) || table.maxTime < request.fromMicros || table.minTime >= request.toMicros)
        continue;
      keys.add(keyString(table.key));
    }
  }
  return keys;
}

/**
 * Columns to read for one row block: the requested ones, plus `_time` when the block straddles the
 * time range (its rows are then cut by time); a block wholly inside the range needs no `_time`
 * unless the query reads it.
 */
function columnsToRead(header: SegmentHeader, block: number, request: ScanRequest): string[] {
  const requested = request.columns;
  // A `_raw` with field references is rebuilt from those fields: they are read with it.
  const names = requested === null ? [...header.columns.map((column) => column.name), INDEX_COLUMN] : withRawRefs(header, requested);
  const meta = header.blocks[block];
  const inside = meta.minTime >= request.fromMicros && meta.maxTime < request.toMicros;
  return names.includes(TIME_COLUMN) || inside ? names : [TIME_COLUMN, ...names];
}

/** The stored columns a block read needs (always `_time`; `index` is not stored). */
export function storedColumnsToRead(header: SegmentHeader, block: number, request: ScanRequest): string[] {
  return columnsToRead(header, block, request).filter((name) => name !== INDEX_COLUMN);
}

/** Decodes the named columns of one row block from their fetched buffers (absent: null constants). */
export function decodeBlockColumns(
  header: SegmentHeader,
  block: number,
  names: readonly string[],
  buffers: readonly (Uint8Array | null)[],
): Map<string, Column> {
  return decodeColumns(header.blocks[block].rows, names, buffers);
}

/**
 * Decodes the fetched buffers of one row block (in `storedColumnsToRead` order) and restricts it
 * to the time range (segments are sorted by time, so that is a slice). Pure: runs in workers too.
 */
export function decodeSegmentBlock(
  header: SegmentHeader,
  block: number,
  stored: readonly string[],
  buffers: readonly (Uint8Array | null)[],
  request: ScanRequest,
  stats: ScanStats,
): ColumnBatch {
  const rows = header.blocks[block].rows;
  const decoded = decodeBlockColumns(header, block, stored, buffers);
  if (request.columns === null || request.columns.includes(INDEX_COLUMN)) {
    decoded.set(INDEX_COLUMN, { kind: 'const', value: header.index, length: rows });
  }
  const { start, end } = timeSlice(decoded.get(TIME_COLUMN), rows, request);
  stats.rowsRead += end - start;
  return { rowCount: end - start, columns: sliceColumns(decoded, rows, start, end) };
}

/** Reads one row block of a segment, restricted to the time range. */
export async function readSegmentBlock(
  store: SegmentStore,
  unit: SegmentUnit,
  block: number,
  request: ScanRequest,
  stats: ScanStats,
): Promise<ColumnBatch> {
  const stored = storedColumnsToRead(unit.header, block, request);
  const buffers = await store.readBlockBuffers(unit.header, block, stored);
  for (const buffer of buffers) stats.bytesRead += buffer?.length ?? 0;
  return decodeSegmentBlock(unit.header, block, stored, buffers, request, stats);
}

/** The chunk of a buffered unit, counting its rows in the time range as read; null when none are. */
export function readBufferedChunk(unit: BufferedUnit, request: ScanRequest, stats: ScanStats): EventChunk | null {
  const chunk = unit.table.chunks[unit.chunk];
  const rows = rowsInRange(chunk, request.fromMicros, request.toMicros);
  stats.rowsRead += rows;
  return rows === 0 ? null : chunk;
}

/** The buffered rows of one chunk that fall in the time range, decoded. */
export function readBufferedUnit(unit: BufferedUnit, request: ScanRequest, stats: ScanStats): ColumnBatch {
  const chunk = unit.table.chunks[unit.chunk];
  stats.rowsRead += rowsInRange(chunk, request.fromMicros, request.toMicros);
  return chunkBatch(chunk, { fromMicros: request.fromMicros, toMicros: request.toMicros, columns: request.columns });
}

/** Gives back the read references of a plan that will not be (fully) scanned. Idempotent. */
export function releasePlan(store: SegmentStore, plan: ScanPlan): void {
  if (plan.released) return;
  plan.released = true;
  store.release(plan.segments.map((unit) => unit.header.id));
}

/**
 * Every batch of a plan, segments first (in plan order) then buffered rows. Releases the plan's
 * read references when the iteration ends or is abandoned.
 */
export async function* scanBatches(store: SegmentStore, plan: ScanPlan, request: ScanRequest): AsyncGenerator<ColumnBatch> {
  try {
    for (const unit of plan.segments) {
      for (const block of unit.blocks) {
        const batch = await readSegmentBlock(store, unit, block, request, plan.stats);
        if (batch.rowCount > 0) yield batch;
      }
    }
    for (const unit of plan.buffered) {
      const batch = readBufferedUnit(unit, request, plan.stats);
      if (batch.rowCount > 0) yield batch;
    }
  } finally {
    releasePlan(store, plan);
  }
}
