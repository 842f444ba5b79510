/**
 * Retention: whole segments whose newest event is older than `retention` are retired (their
 * blocks deleted once no scan reads them), and compaction manifests older than it are dropped.
 * Rows are never rewritten for retention: a segment straddling the cut stays until it is all old.
 */
import { manifestKey, MANIFEST_PREFIX } from '../core/keys';
import type { Rocks, WriteOp } from '../core/rocks';
import type { SegmentStore } from './segment-store';

export interface RetentionResult {
  segments: number;
  rows: number;
  bytes: number;
}

/** Event times below this are retention's to delete at `nowMs` (ingest refuses them: node/ingest/common.ts). */
export function retentionCutoffMicros(nowMs: number, retentionMs: number): number {
  return (nowMs - retentionMs) * 1000;
}

export async function applyRetention(store: SegmentStore, rocks: Rocks, retentionMs: number, nowMs: number): Promise<RetentionResult> {
  const cutoffMicros = retentionCutoffMicros(nowMs, retentionMs);
  const expired = [...store.all()].filter((header) => header.maxTime < cutoffMicros);
  const result: RetentionResult = { segments: 0, rows: 0, bytes: 0 };
  const ops: WriteOp[] = [];
  for (const header of expired) {
    ops.push(...store.retireOps(header.id));
    result.segments++;
    result.rows += header.rowCount;
    result.bytes += header.bytes;
  }
  // Manifests finished before the cutoff go too, so the history does not grow without bound.
  ops.push({ type: 'delRange', start: MANIFEST_PREFIX, end: manifestKey(nowMs - retentionMs, '') });
  await rocks.write(ops);
  store.apply(
    [],
    expired.map((header) => header.id),
  );
  return result;
}
