/**
 * Compaction: merges small segments of the same partition key into bigger ones (up to
 * `segment_max_events` rows) and records a manifest per merge. Retention lives in retention.ts.
 *
 * Policy (tiered, to bound write amplification): in a bucket still receiving data, merge once at
 * least MIN_OPEN_BUCKET_INPUTS small segments wait; in a closed bucket, merge every small
 * segment. Inputs are taken in time order and packed greedily up to `segment_max_events`.
 */
import type { ColumnBatch } from './column';
import { valueAt } from './column';
import { RAW_COLUMN, TIME_COLUMN } from './event';
import { manifestKey, MANIFEST_PREFIX } from './keys';
import { prefixEnd, type Rocks } from './rocks';
import { buildSegments } from './segment-builder';
import type { SegmentStore } from './segment-store';
import type { SegmentHeader } from './segment/header';
import type { RowSet } from './segment/row-set';
import { mergeSourceStats } from './source-stats';

export const MIN_OPEN_BUCKET_INPUTS = 4;

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

/** Appends the rows of a decoded batch (all columns) to a row set. */
function appendBatch(target: RowSet, batch: ColumnBatch): void {
  const base = target.count;
  const times = batch.columns.get(TIME_COLUMN);
  const raws = batch.columns.get(RAW_COLUMN);
  for (let row = 0; row < batch.rowCount; row++) {
    target.times.push(times === undefined ? 0 : (valueAt(times, row) as number));
    const raw = raws === undefined ? null : valueAt(raws, row);
    target.raws.push(raw === null ? '' : String(raw));
  }
  for (const [name, column] of batch.columns) {
    if (name === TIME_COLUMN || name === RAW_COLUMN) continue;
    if (column.kind === 'const' && column.value === null) continue;
    let sparse = target.fields.get(name);
    for (let row = 0; row < batch.rowCount; row++) {
      const value = valueAt(column, row);
      if (value === null) continue;
      if (sparse === undefined) {
        sparse = { rows: [], values: [] };
        target.fields.set(name, sparse);
      }
      sparse.rows.push(base + row);
      sparse.values.push(value);
    }
  }
  target.count = base + batch.rowCount;
}

async function readAllRows(store: SegmentStore, inputs: SegmentHeader[]): Promise<RowSet> {
  const rows: RowSet = { count: 0, times: [], raws: [], fields: new Map() };
  for (const header of inputs) {
    const names = header.columns.map((column) => column.name);
    for (let block = 0; block < header.blocks.length; block++) {
      const columns = await store.readBlock(header, block, names);
      appendBatch(rows, { rowCount: header.blocks[block].rows, columns });
    }
  }
  return rows;
}

/** Merges one group into a new segment and commits it with its manifest in one batch. */
export async function compactGroup(
  store: SegmentStore,
  rocks: Rocks,
  inputs: SegmentHeader[],
  options: CompactionOptions,
): Promise<CompactionManifest> {
  const started = Date.now();
  const ids = inputs.map((input) => input.id);
  store.acquire(ids);
  try {
    const rows = await readAllRows(store, inputs);
    const level = 1 + Math.max(...inputs.map((input) => input.level));
    const [segment] = buildSegments(rows, inputs[0], {
      compressionLevel: options.compressionLevel,
      segmentMaxEvents: Number.MAX_SAFE_INTEGER,
      level,
      nextId: () => store.nextId(),
    });
    // The source summary of the merged rows equals the merge of the inputs' summaries.
    segment.header.sources = mergeSourceStats(inputs.map((input) => input.sources));
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
