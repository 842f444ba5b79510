/**
 * The flusher: seals the active write-buffer generation and turns it into level-0 segments, one
 * or more per partition key (per storage group of a piece, where the node groups its partitions:
 * segment/segment-keys.ts), committing the segments and the deletion of the generation's
 * write-buffer records in one atomic RocksDB batch.
 */
import type { CodecPool } from '../threads/codec-pool';
import { flushZstdLevel } from './compactor';
import type { Rocks, WriteOp } from '../core/rocks';
import { buildSegments } from './segment-builder';
import type { SegmentStore } from './segment-store';
import type { SegmentHeader } from '../segment/header';
import type { PartitionKey } from '../core/partition';
import type { MemTable } from '../buffer/memtable';
import { walDeleteOps, type Generation, type WriteBuffer } from '../buffer/write-buffer';

/**
 * The storage group of a key: keys of one piece with the same group are stored in one segment.
 * null: the key is stored alone.
 */
export type GroupOf = (key: PartitionKey) => string | null;

/** A generation's memtables to store together: one key's, or one storage group's of one piece. */
interface TableSet {
  tables: MemTable[];
  group: string | undefined;
}

function tableSets(tables: Iterable<MemTable>, groupOf: GroupOf | null): TableSet[] {
  const sets = new Map<string, TableSet>();
  const alone: TableSet[] = [];
  for (const table of tables) {
    const group = groupOf?.(table.key) ?? null;
    if (group === null) {
      alone.push({ tables: [table], group: undefined });
      continue;
    }
    const name = `${table.key.index}|${table.key.bucket}|${group}`;
    const set = sets.get(name);
    if (set === undefined) sets.set(name, { tables: [table], group });
    else set.tables.push(table);
  }
  return [...alone, ...sets.values()];
}

export interface FlushResult {
  events: number;
  segments: SegmentHeader[];
  durationMs: number;
}

export interface FlushOptions {
  /** `storage.compression_level`; segments are written at flushZstdLevel() of it. */
  compressionLevel: number;
  segmentMaxEvents: number;
  sync: boolean;
  /** The storage groups of keys (null: every key alone, as on a node alone). */
  groupOf: GroupOf | null;
}

/** Writes one sealed generation. On failure it stays sealed (and readable) and the next flush retries it. */
export async function flushGeneration(
  pool: CodecPool,
  generation: Generation,
  buffer: WriteBuffer,
  store: SegmentStore,
  rocks: Rocks,
  options: FlushOptions,
): Promise<FlushResult> {
  const started = performance.now();
  const ops: WriteOp[] = [];
  const headers: SegmentHeader[] = [];
  const built = await Promise.all(
    tableSets(generation.tables.values(), options.groupOf).map(({ tables, group }) =>
      buildSegments(
        pool,
        tables.flatMap((table) => table.chunks),
        tables[0]!.key,
        {
          compressionLevel: flushZstdLevel(options.compressionLevel),
          segmentMaxEvents: options.segmentMaxEvents,
          level: 0,
          nextId: () => store.nextId(),
        },
        group,
      ),
    ),
  );
  for (const segment of built.flat()) {
    ops.push(...store.putOps(segment));
    headers.push(segment.header);
  }
  ops.push(...walDeleteOps(generation));
  await rocks.write(ops, options.sync);
  // Same tick: readers see either the sealed generation or its segments, never both.
  store.apply(headers, []);
  buffer.release(generation);
  return { events: generation.events, segments: headers, durationMs: performance.now() - started };
}
