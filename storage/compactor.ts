/**
 * Compaction: merges small segments of the same partition key into bigger ones (up to
 * `segment_max_events` rows) and records a manifest per merge. Retention lives in retention.ts.
 *
 * Policy (tiered, to bound write amplification): in a bucket still receiving data, merge once at
 * least MIN_OPEN_BUCKET_INPUTS small segments wait; in a closed bucket, merge every small
 * segment. Inputs are taken in time order and packed greedily up to `segment_max_events`.
 */
import type { CodecPool } from './codec-pool';
import type { MergeInput } from './codec-worker';
import { manifestKey, MANIFEST_PREFIX } from './keys';
import { prefixEnd, type Rocks } from './rocks';
import { BLOCK_ROWS, withIdentity } from './segment-builder';
import type { SegmentStore } from './segment-store';
import type { SegmentHeader } from './segment/header';

export const MIN_OPEN_BUCKET_INPUTS = 4;

/**
 * Merged segments are recompressed this many zstd levels above `storage.compression_level`: the
 * flusher must keep up with ingest, a merge runs in the background and its output lives long
 * (level 3 -> 6 stores log text about 15% smaller for about 3x the compression CPU).
 */
export const COMPACTION_LEVEL_BOOST = 3;

export interface CompactionManifest {
  id: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  index: string;
  bucket: string;
  partition: number;
  level: number;
  inputs: { id: string; rows: number; bytes: number; level: number }[];
  output: { id: string; rows: number; bytes: number };
  rows: number;
  bytes_before: number;
  bytes_after: number;
}

export interface CompactionOptions {
  segmentMaxEvents: number;
  compressionLevel: number;
  bucketSpanMicros: number;
  /** A bucket is closed once its end is this far in the past. */
  closeGraceMicros: number;
  nowMicros: number;
}

/** Groups of segments to merge, each of one key, at least two segments, at most segmentMaxEvents rows. */
export function pickCompactions(groups: Map<string, SegmentHeader[]>, options: CompactionOptions): SegmentHeader[][] {
  const picked: SegmentHeader[][] = [];
  for (const segments of groups.values()) {
    const small = segments
      .filter((segment) => segment.rowCount < options.segmentMaxEvents)
      .sort((a, b) => a.minTime - b.minTime || a.id.localeCompare(b.id));
    if (small.length < 2) continue;
    const bucketEnd = small[0].bucket + options.bucketSpanMicros;
    const closed = bucketEnd + options.closeGraceMicros <= options.nowMicros;
    if (!closed && small.length < MIN_OPEN_BUCKET_INPUTS) continue;
    let group: SegmentHeader[] = [];
    let rows = 0;
    for (const segment of small) {
      if (rows + segment.rowCount > options.segmentMaxEvents && group.length > 0) {
        if (group.length >= 2) picked.push(group);
        group = [];
        rows = 0;
      }
      group.push(segment);
      rows += segment.rowCount;
    }
    if (group.length >= 2) picked.push(group);
  }
  return picked;
}

/** The compressed blocks of every stored column of the inputs, for a merge in the codec pool. */
async function readAllBlocks(store: SegmentStore, inputs: SegmentHeader[]): Promise<MergeInput[]> {
  const out: MergeInput[] = [];
  for (const header of inputs) {
    const names = header.columns.map((column) => column.name);
    const blocks: (Uint8Array | null)[][] = [];
    for (let block = 0; block < header.blocks.length; block++) blocks.push(await store.readBlockBuffers(header, block, names));
    out.push({ header, blocks });
  }
  return out;
}

/** Merges one group into a new segment and commits it with its manifest in one batch. */
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
      compressionLevel: Math.min(19, options.compressionLevel + COMPACTION_LEVEL_BOOST),
      blockRows: BLOCK_ROWS,
    });
    const level = 1 + Math.max(...inputs.map((input) => input.level));
    const segment = withIdentity(encoded, inputs[0], {
      compressionLevel: options.compressionLevel,
      segmentMaxEvents: Infinity,
      level,
      nextId: () => store.nextId(),
    });
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
      level,
      inputs: inputs.map((input) => ({ id: input.id, rows: input.rowCount, bytes: input.bytes, level: input.level })),
      output: { id: segment.header.id, rows: segment.header.rowCount, bytes: segment.header.bytes },
      rows: segment.header.rowCount,
      bytes_before: bytesBefore,
      bytes_after: segment.header.bytes,
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
