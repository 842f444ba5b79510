/**
 * Compaction: merges small segments of the same partition key (or storage group of a piece:
 * segment/segment-keys.ts) into bigger ones (up to
 * `segment_max_events` rows) and records a manifest per merge. Retention lives in retention.ts.
 *
 * Policy (tiered, to bound write amplification): in a bucket still receiving data, merge once at
 * least MIN_OPEN_BUCKET_INPUTS small segments wait; in a closed bucket, merge every small
 * segment. Inputs are taken in time order and packed greedily up to `segment_max_events`.
 * In a closed bucket, a flusher segment (level 0) that no merge takes (a full one, or the only
 * small one) is recompressed alone, once: so every row ends up at the compaction zstd level.
 */
import type { CodecPool } from '../threads/codec-pool';
import type { MergeInput } from '../threads/codec-worker';
import { manifestKey, MANIFEST_PREFIX } from '../core/keys';
import { prefixEnd, type Rocks } from '../core/rocks';
import { BLOCK_ROWS, withIdentity } from './segment-builder';
import type { SegmentStore } from './segment-store';
import type { SegmentHeader } from '../segment/header';
import { bucketEndOf } from '../core/partition';
import { unionOfPartitions } from '../segment/segment-keys';

export const MIN_OPEN_BUCKET_INPUTS = 4;

/**
 * zstd levels of the two writers, both derived from `storage.compression_level` (1-19, default 3):
 *
 * - the flusher writes level-0 segments FLUSH_LEVEL_DROP levels below it (at least 1): it must
 *   keep up with ingest, and zstd levels 1 to 3 store log text at about the same size, level 1
 *   for less CPU;
 * - compaction writes COMPACTION_LEVEL_BOOST levels above it (at most 19): a merge runs in the
 *   background and its output is what the data occupies for the rest of its retention
 *   (figures: docs/benchmarks.md, "Figures behind the constants").
 *
 * So the default 3 gives 1 at flush and 9 after compaction. Like RocksDB's separate
 * `bottommost_compression` level: the level data lives at is higher than the one it is written at.
 */
export const FLUSH_LEVEL_DROP = 2;
export const COMPACTION_LEVEL_BOOST = 6;

/** zstd level of the segments the flusher writes. */
export function flushZstdLevel(compressionLevel: number): number {
  return Math.max(1, compressionLevel - FLUSH_LEVEL_DROP);
}

/** zstd level of the segments compaction writes. */
export function compactionZstdLevel(compressionLevel: number): number {
  return Math.min(19, compressionLevel + COMPACTION_LEVEL_BOOST);
}

export interface CompactionManifest {
  id: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  index: string;
  bucket: string;
  /** The output's partition; of a storage group's segment, the first of `partitions`. */
  partition: number;
  /** A storage group's segment (segment/segment-keys.ts): every partition it holds. */
  partitions?: number[];
  level: number;
  inputs: { id: string; rows: number; bytes: number; level: number }[];
  output: { id: string; rows: number; bytes: number };
  rows: number;
  bytes_before: number;
  bytes_after: number;
  /**
   * True when the inputs' rows followed one another in time, so their column blocks were kept and
   * only `_raw` written anew (segment-rewrite.ts); false when every column was decoded and encoded again.
   */
  blocks_kept: boolean;
}

export interface CompactionOptions {
  segmentMaxEvents: number;
  compressionLevel: number;
  bucketSpanMicros: number;
  /** A bucket is closed once its end is this far in the past. */
  closeGraceMicros: number;
  nowMicros: number;
}

/**
 * Groups of segments to compact, each of one key and at most segmentMaxEvents rows: merges of at
 * least two segments, and (in closed buckets, when compaction compresses harder than the flusher)
 * single level-0 segments to recompress.
 */
export function pickCompactions(groups: Map<string, SegmentHeader[]>, options: CompactionOptions): SegmentHeader[][] {
  const picked: SegmentHeader[][] = [];
  const recompress = compactionZstdLevel(options.compressionLevel) > flushZstdLevel(options.compressionLevel);
  for (const segments of groups.values()) {
    if (segments.length === 0) continue;
    // A key's bucket may be a split inside its bucket: the bucket closes at its own end.
    const bucketEnd = bucketEndOf(segments[0].bucket, options.bucketSpanMicros);
    const closed = bucketEnd + options.closeGraceMicros <= options.nowMicros;
    const small = segments
      .filter((segment) => segment.rowCount < options.segmentMaxEvents)
      .sort((a, b) => a.minTime - b.minTime || a.id.localeCompare(b.id));
    const merged = new Set<SegmentHeader>();
    if (small.length >= 2 && (closed || small.length >= MIN_OPEN_BUCKET_INPUTS)) {
      let group: SegmentHeader[] = [];
      let rows = 0;
      const close = (): void => {
        if (group.length >= 2) {
          picked.push(group);
          for (const segment of group) merged.add(segment);
        }
      };
      for (const segment of small) {
        if (rows + segment.rowCount > options.segmentMaxEvents && group.length > 0) {
          close();
          group = [];
          rows = 0;
        }
        group.push(segment);
        rows += segment.rowCount;
      }
      close();
    }
    if (!closed || !recompress) continue;
    const alone = segments
      .filter((segment) => segment.level === 0 && !merged.has(segment))
      .sort((a, b) => a.minTime - b.minTime || a.id.localeCompare(b.id));
    for (const segment of alone) picked.push([segment]);
  }
  return picked;
}

/**
 * The compressed blocks of every stored column of the inputs, for a merge in the codec pool, and
 * their filters, with which inputs that follow one another in time keep their fields' blocks
 * (segment-rewrite.ts).
 */
async function readAllBlocks(store: SegmentStore, inputs: SegmentHeader[]): Promise<MergeInput[]> {
  const out: MergeInput[] = [];
  for (const header of inputs) {
    const names = header.columns.map((column) => column.name);
    const blocks: (Uint8Array | null)[][] = [];
    for (let block = 0; block < header.blocks.length; block++) blocks.push(await store.readBlockBuffers(header, block, names));
    const blooms = await store.readBlooms(
      header,
      header.blocks.map((_, block) => block),
    );
    out.push({ header, blocks, blooms });
  }
  return out;
}

/** Merges one group (or recompresses one segment) into a new segment and commits it with its manifest in one batch. */
export async function compactGroup(
  pool: CodecPool,
  store: SegmentStore,
  rocks: Rocks,
  inputs: SegmentHeader[],
  options: CompactionOptions,
): Promise<CompactionManifest> {
  const started = Date.now();
  const ids = inputs.map((input) => input.id);
  store.acquire(ids);
  try {
    const encoded = await pool.merge(await readAllBlocks(store, inputs), {
      compressionLevel: compactionZstdLevel(options.compressionLevel),
      blockRows: BLOCK_ROWS,
      rawRefs: true,
    });
    const level = 1 + Math.max(...inputs.map((input) => input.level));
    const group = inputs[0].group;
    const grouping = group === undefined ? undefined : { group, partitions: unionOfPartitions(inputs) };
    const segment = withIdentity(
      encoded,
      inputs[0],
      {
        compressionLevel: options.compressionLevel,
        segmentMaxEvents: Infinity,
        level,
        nextId: () => store.nextId(),
      },
      grouping,
    );
    const finished = Date.now();
    const bytesBefore = inputs.reduce((sum, input) => sum + input.bytes, 0);
    const manifest: CompactionManifest = {
      id: `cmp_${segment.header.id}`,
      started_at: new Date(started).toISOString(),
      finished_at: new Date(finished).toISOString(),
      duration_ms: finished - started,
      index: segment.header.index,
      bucket: new Date(segment.header.bucket / 1000).toISOString(),
      partition: segment.header.partition,
      ...(segment.header.partitions === undefined ? {} : { partitions: segment.header.partitions }),
      level,
      inputs: inputs.map((input) => ({ id: input.id, rows: input.rowCount, bytes: input.bytes, level: input.level })),
      output: { id: segment.header.id, rows: segment.header.rowCount, bytes: segment.header.bytes },
      rows: segment.header.rowCount,
      bytes_before: bytesBefore,
      bytes_after: segment.header.bytes,
      blocks_kept: encoded.keptBlocks === true,
    };
    const ops = [
      ...store.putOps(segment),
      ...ids.flatMap((id) => store.retireOps(id)),
      { type: 'put' as const, key: manifestKey(finished, manifest.id), value: Buffer.from(JSON.stringify(manifest)) },
    ];
    await rocks.write(ops);
    store.apply([segment.header], ids);
    return manifest;
  } finally {
    store.release(ids);
  }
}

/** Manifests finished at or after `sinceMs`, oldest first. */
export async function readManifests(rocks: Rocks, sinceMs: number, limit: number): Promise<CompactionManifest[]> {
  const manifests: CompactionManifest[] = [];
  const start = manifestKey(Math.max(0, sinceMs), '');
  for await (const { value } of rocks.scanRange(start, prefixEnd(MANIFEST_PREFIX))) {
    manifests.push(JSON.parse(value.toString('utf8')) as CompactionManifest);
    if (manifests.length >= limit) break;
  }
  return manifests;
}
