/**
 * The set of stored segments: every header in memory (pruning never touches disk), the write
 * operations that add or remove a segment, and block reads for the scan.
 */
import { BloomCache } from '../core/byte-lru';
import type { Column } from '../core/column';
import {
  blockKey,
  blockRange,
  bloomKey,
  bloomRange,
  headerKey,
  HEADER_PREFIX,
  RETIRED_PREFIX,
  retiredKey,
  segmentCounterOf,
  segmentIdFor,
} from '../core/keys';
import type { PartitionKey } from '../core/partition';
import type { Rocks, WriteOp } from '../core/rocks';
import { withRawRefs, type SegmentHeader } from '../segment/header';
import { decodeColumns } from '../segment/row-block';
import { compactionKeyOf } from '../segment/segment-keys';

/** The named columns of one row block of a segment, to read. */
export interface BlockRead {
  header: SegmentHeader;
  block: number;
  columns: readonly string[];
}

/** An encoded segment ready to be stored: its header and buffers. */
export interface EncodedSegmentData {
  header: SegmentHeader;
  /** `blockData[b][c]`: row block b, column c (in `header.columns` order). */
  blockData: Buffer[][];
  /** One bloom filter per row block (empty when the block has no tokens). */
  blooms: Buffer[];
}

export class SegmentStore {
  private readonly headers = new Map<string, SegmentHeader>();
  /** Scans in progress per segment: a retired segment's blocks are deleted only when none is left. */
  private readonly readers = new Map<string, number>();
  /** Removed from the set but maybe still read: ids awaiting block deletion. */
  private readonly retired = new Set<string>();
  private purging: Promise<void> = Promise.resolve();
  private counter = 0;
  /**
   * 128 MiB of recently probed bloom filters: a needle search probes every row block's, about
   * 6 MB per million events (block and frame filters), and a scan over more than fit misses them all.
   */
  private readonly blooms = new BloomCache(128 * 1024 * 1024);
  /** Row-block counts of retired segments, to forget their cached filters. */
  private readonly retiredBlocks = new Map<string, number>();
  /** Bumped on every change, so derived views (catalog, caches) know when to recompute. */
  version = 0;

  constructor(private readonly rocks: Rocks) {}

  async load(): Promise<void> {
    for await (const { value } of this.rocks.scan(HEADER_PREFIX)) {
      const header = JSON.parse(value.toString('utf8')) as SegmentHeader;
      this.headers.set(header.id, header);
      this.counter = Math.max(this.counter, segmentCounterOf(header.id));
    }
    // Segments retired by a compaction or retention run that did not finish deleting them.
    for await (const { key } of this.rocks.scan(RETIRED_PREFIX)) {
      const id = key.subarray(RETIRED_PREFIX.length).toString('utf8');
      this.counter = Math.max(this.counter, segmentCounterOf(id));
      this.retired.add(id);
    }
    this.version++;
    this.schedulePurge();
  }

  nextId(): string {
    this.counter++;
    return segmentIdFor(this.counter);
  }

  all(): IterableIterator<SegmentHeader> {
    return this.headers.values();
  }

  get(id: string): SegmentHeader | undefined {
    return this.headers.get(id);
  }

  get size(): number {
    return this.headers.size;
  }

  /** Headers grouped by what compaction merges: a partition key, or a storage group of a piece. */
  byKey(): Map<string, SegmentHeader[]> {
    const groups = new Map<string, SegmentHeader[]>();
    for (const header of this.headers.values()) {
      const key = compactionKeyOf(header);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [header]);
      else group.push(header);
    }
    return groups;
  }

  putOps(segment: EncodedSegmentData): WriteOp[] {
    const { header } = segment;
    const ops: WriteOp[] = [{ type: 'put', key: headerKey(header.id), value: Buffer.from(JSON.stringify(header)) }];
    segment.blockData.forEach((columns, block) => {
      columns.forEach((data, column) => ops.push({ type: 'put', key: blockKey(header.id, block, column), value: data }));
    });
    segment.blooms.forEach((bloom, block) => {
      if (bloom.length > 0) ops.push({ type: 'put', key: bloomKey(header.id, block), value: bloom });
    });
    return ops;
  }

  /**
   * Removes a segment from the set, atomically with whatever else the batch does; its blocks are
   * deleted later, once no scan reads them (a tombstone `x:<id>` survives a crash in between).
   */
  retireOps(id: string): WriteOp[] {
    return [
      { type: 'del', key: headerKey(id) },
      { type: 'put', key: retiredKey(id), value: Buffer.alloc(0) },
    ];
  }

  /**
   * The headers of every segment not under `partition` yet, moved there, with the
   * batch that stores them: the keys of a node's events stored alone, set apart from the keys a
   * cluster places (storage/stored-alone.ts). Publish them with `apply([...], [])`.
   */
  relabelOps(partition: number): { headers: SegmentHeader[]; ops: WriteOp[] } {
    const headers: SegmentHeader[] = [];
    const ops: WriteOp[] = [];
    for (const header of this.headers.values()) {
      if (header.partition === partition && header.partitions === undefined) continue;
      // A segment of a storage group becomes one of the single key too.
      const { partitions: _partitions, group: _group, ...rest } = header;
      const moved: SegmentHeader = { ...rest, partition };
      headers.push(moved);
      ops.push({ type: 'put', key: headerKey(header.id), value: Buffer.from(JSON.stringify(moved)) });
    }
    return { headers, ops };
  }

  /** Publishes a committed change to readers (call after the RocksDB write resolved). */
  apply(added: SegmentHeader[], retiredIds: string[]): void {
    for (const id of retiredIds) {
      const header = this.headers.get(id);
      if (header !== undefined) this.retiredBlocks.set(id, header.blocks.length);
      this.headers.delete(id);
      this.retired.add(id);
    }
    for (const header of added) this.headers.set(header.id, header);
    this.version++;
    if (retiredIds.length > 0) this.schedulePurge();
  }

  /** Marks segments as being read by a scan. */
  acquire(ids: readonly string[]): void {
    for (const id of ids) this.readers.set(id, (this.readers.get(id) ?? 0) + 1);
  }

  release(ids: readonly string[]): void {
    let purge = false;
    for (const id of ids) {
      const count = (this.readers.get(id) ?? 1) - 1;
      if (count <= 0) {
        this.readers.delete(id);
        if (this.retired.has(id)) purge = true;
      } else this.readers.set(id, count);
    }
    if (purge) this.schedulePurge();
  }

  /** Resolves when every retired segment that nobody reads has been deleted. */
  whenPurged(): Promise<void> {
    return this.purging;
  }

  private schedulePurge(): void {
    this.purging = this.purging.then(() => this.purgeUnread()).catch(() => undefined);
  }

  private async purgeUnread(): Promise<void> {
    const ids = [...this.retired].filter((id) => !this.readers.has(id));
    if (ids.length === 0) return;
    const ops: WriteOp[] = [];
    for (const id of ids) {
      const range = blockRange(id);
      ops.push({ type: 'delRange', start: range.start, end: range.end });
      const blooms = bloomRange(id);
      ops.push({ type: 'delRange', start: blooms.start, end: blooms.end });
      ops.push({ type: 'del', key: retiredKey(id) });
    }
    await this.rocks.write(ops);
    for (const id of ids) {
      this.retired.delete(id);
      this.blooms.forget(id, this.retiredBlocks.get(id) ?? 0);
      this.retiredBlocks.delete(id);
    }
  }

  /** The compressed buffers of the named columns in one row block (null when a column is absent). */
  async readBlockBuffers(header: SegmentHeader, block: number, columns: readonly string[]): Promise<(Buffer | null)[]> {
    const [buffers] = await this.readBlocksBuffers([{ header, block, columns }]);
    return buffers;
  }

  /**
   * readBlockBuffers for several row blocks in one multi-get: fewer round trips to RocksDB's
   * threads when a scan reads many small blocks (e.g. one dictionary column per block).
   */
  async readBlocksBuffers(reads: readonly BlockRead[]): Promise<(Buffer | null)[][]> {
    const keys: Buffer[] = [];
    const slots: { read: number; position: number }[] = [];
    reads.forEach(({ header, block, columns }, read) => {
      columns.forEach((name, position) => {
        const column = header.columns.findIndex((stats) => stats.name === name);
        if (column !== -1) {
          keys.push(blockKey(header.id, block, column));
          slots.push({ read, position });
        }
      });
    });
    const values = await this.rocks.getMany(keys);
    const out = reads.map(({ columns }) => new Array<Buffer | null>(columns.length).fill(null));
    slots.forEach(({ read, position }, i) => {
      out[read][position] = values[i];
    });
    return out;
  }

  /** The bloom filters of the given row blocks (null where a block has none), in one multi-get. */
  async readBlooms(header: SegmentHeader, blocks: readonly number[]): Promise<(Buffer | null)[]> {
    const byBlock = new Map<number, Buffer | null>();
    const missing: number[] = [];
    for (const block of blocks) {
      if (header.blocks[block].bloom.bits === 0) continue;
      const cached = this.blooms.get(`${header.id}/${block}`);
      if (cached !== undefined) byBlock.set(block, cached);
      else missing.push(block);
    }
    const values = await this.rocks.getMany(missing.map((block) => bloomKey(header.id, block)));
    missing.forEach((block, i) => {
      const value = values[i];
      byBlock.set(block, value);
      if (value !== null) this.blooms.set(`${header.id}/${block}`, value);
    });
    return blocks.map((block) => byBlock.get(block) ?? null);
  }

  /** Reads and decodes the named columns of one row block. Absent columns become null constants. */
  async readBlock(header: SegmentHeader, block: number, columns: readonly string[]): Promise<Map<string, Column>> {
    // A `_raw` with field references needs them: they are read along, and left out of the answer.
    const names = withRawRefs(header, columns);
    const buffers = await this.readBlockBuffers(header, block, names);
    const decoded = decodeColumns(header.blocks[block].rows, names, buffers);
    return new Map(columns.map((name) => [name, decoded.get(name)!]));
  }
}

export function sameKey(a: PartitionKey, b: PartitionKey): boolean {
  return a.index === b.index && a.bucket === b.bucket && a.partition === b.partition;
}
