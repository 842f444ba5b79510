/**
 * How a query worker reads the blocks of a scan: segment row blocks and buffered chunks, decoded
 * late. The columns the leading filters read come first, and the rest only when some row passes
 * them (most blocks of a selective query are never fully decoded); a packed integer filter runs
 * on the stored bytes, and a searched `_raw` is searched as bytes before it becomes strings. The
 * rows go to a LateRows consumer, which runs the filters between the two steps.
 */
import type { Column, ColumnBatch } from '../core/column';
import { INDEX_COLUMN, RAW_COLUMN, TIME_COLUMN } from '../core/event';
import { chunkBatch, type ChunkScan } from '../buffer/chunk-read';
import type { EventChunk } from '../buffer/event-chunk';
import { ColumnEncoding, readBlockHeader } from '../segment/column-codec';
import { decodeColumns, type StoredColumns } from '../segment/row-block';
import { selectPacked } from '../segment/packed-select';
import { cachesColumn, nameBlock, payloadCacheHits, storedBlockName } from '../segment/payload-cache';
import type { BlockInput } from './block-input';
import { sliceColumns, timeSlice } from './batch-slice';
import type { LateRows, LeadingFilters } from './late-rows';
import { RawSearch } from './raw-search';

/** What of a scan request a block reader reads (scan.ts ScanRequest holds it). */
export interface BlockReadScope {
  /** Time range [fromMicros, toMicros). */
  fromMicros: number;
  toMicros: number;
  /** Columns to decode (null = all the block has). */
  columns: readonly string[] | null;
  /** Lower-cased tokens every match's `_raw` holds. */
  rawTokens?: readonly string[];
}

/** The counters a block reader adds to (scan.ts ScanStats holds them). */
export interface BlockReadCounters {
  rowsRead: number;
  /** Column blocks whose decompressed payload came from this thread's cache. */
  blocksCached: number;
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

export class BlockReader {
  private readonly rawSearch: RawSearch;

  constructor(
    private readonly scope: BlockReadScope,
    private readonly filters: LeadingFilters,
    private readonly counters: BlockReadCounters,
    private readonly consumer: LateRows,
  ) {
    this.rawSearch = new RawSearch(filters.rawLiterals, scope.rawTokens);
  }

  /** One segment block, decoded late, its column buffers named for this thread's payload cache. */
  readBlock(input: BlockInput): void {
    const hitsBefore = payloadCacheHits();
    this.nameBlocks(input);
    this.readNamedBlock(input);
    this.counters.blocksCached += payloadCacheHits() - hitsBefore;
  }

  /** Names the block's column buffers for this thread's payload cache (cachesColumn: not `_raw`). */
  private nameBlocks(input: BlockInput): void {
    input.stored.forEach((name, i) => {
      const buffer = input.buffers[i];
      if (buffer !== null && cachesColumn(name)) nameBlock(buffer, storedBlockName(input.segment, input.block, name));
    });
  }

  /** readBlock, once the block's buffers are named. */
  private readNamedBlock(input: BlockInput): void {
    const { rows, stored, buffers } = input;
    const scope = this.scope;
    const packedAt = this.packedFilterAt(stored, buffers);
    const early = this.earlyColumns(stored, packedAt === -1 ? null : stored[packedAt]);
    // A `_raw` the leading filters search is searched as bytes first: only candidate rows get strings.
    const searched = this.rawSearch.searches.length > 0 || input.rawFrames !== null;
    const rawAt = searched && early.has(RAW_COLUMN) ? stored.indexOf(RAW_COLUMN) : -1;
    const rawBuffer = rawAt === -1 ? null : buffers[rawAt];
    const block: StoredColumns = { names: stored, buffers };
    // Fields a `_raw` search decoded at its candidate rows; every row read later is one of those.
    const searchedFields = new Map<string, Column>();
    const raw = rawBuffer === null ? null : this.rawSearch.search(rawBuffer, rows, input, block, searchedFields);
    const earlyNames = stored.filter((name) => early.has(name) && (raw === null || name !== RAW_COLUMN));
    const columns = decodeColumns(
      rows,
      earlyNames,
      earlyNames.map((name) => buffers[stored.indexOf(name)]),
      undefined,
      block,
    );
    if (raw !== null) columns.set(RAW_COLUMN, raw.column);
    if (scope.columns === null || scope.columns.includes(INDEX_COLUMN)) {
      columns.set(INDEX_COLUMN, { kind: 'const', value: input.index, length: rows });
    }
    const { start, end } = timeSlice(columns.get(TIME_COLUMN), rows, scope);
    this.counters.rowsRead += end - start;
    const batch: ColumnBatch = { rowCount: end - start, columns: sliceColumns(columns, rows, start, end) };
    const candidates = raw?.rows === undefined || raw.rows === null ? null : { rows: raw.rows, offset: start };
    const comparison = this.filters.packed;
    const prefilter =
      packedAt === -1 || comparison === null
        ? null
        : (sel: Uint32Array, n: number): number => {
            const kept = selectPacked(buffers[packedAt] as Uint8Array, comparison.op, comparison.constant, sel, n, start);
            if (kept === null) throw new Error('packed filter: the block is not packed integers');
            return kept;
          };
    this.consumer.takeLate(batch, candidates, prefilter, (sel, n) => {
      const skip = (name: string): boolean => early.has(name) || (packedAt !== -1 && name === stored[packedAt]);
      const late = stored.filter((name) => !skip(name));
      const lateBuffers = buffers.filter((_, i) => !skip(stored[i]));
      if (late.length === 0) return [];
      // Few rows passed the filters: string columns make strings for those rows only.
      const only = n * FEW_ROWS <= batch.rowCount ? blockRows(sel, n, start) : undefined;
      return sliceColumns(decodeColumns(rows, late, lateBuffers, only, block, searchedFields), rows, start, end);
    });
  }

  /** A buffered chunk, decoded late as readBlock does. */
  readChunk(chunk: EventChunk, scan: ChunkScan): void {
    const names = scan.columns ?? [TIME_COLUMN, RAW_COLUMN, INDEX_COLUMN, ...chunk.fields.map((field) => field.name)];
    const early = this.earlyColumns(names, null);
    const batch = chunkBatch(chunk, { ...scan, columns: [...early] });
    this.consumer.takeLate(batch, null, null, () => {
      const late = names.filter((name) => !early.has(name));
      return late.length === 0 ? [] : [...chunkBatch(chunk, { ...scan, columns: late }).columns].filter(([name]) => name !== TIME_COLUMN);
    });
  }

  /**
   * The columns to decode before the leading filters run: what they read, and `_time` (all without
   * filters). `packed` is the field the packed filter reads from the stored bytes instead.
   */
  private earlyColumns(names: readonly string[], packed: string | null): Set<string> {
    const { lateColumns, fields } = this.filters;
    return new Set(names.filter((name) => !lateColumns || (fields.has(name) && name !== packed) || name === TIME_COLUMN));
  }

  /** Where the packed filter's field is among the block's stored columns, when it is packed integers there; else -1. */
  private packedFilterAt(stored: readonly string[], buffers: readonly (Uint8Array | null)[]): number {
    const packed = this.filters.packed;
    if (packed === null) return -1;
    const at = stored.indexOf(packed.field);
    const buffer = at === -1 ? null : buffers[at];
    return buffer !== null && readBlockHeader(buffer).encoding === ColumnEncoding.NumberPacked ? at : -1;
  }
}
