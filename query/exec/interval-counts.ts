/**
 * `stats count() by bin(_time, step)` with nothing before it (a histogram's count): a shard
 * answers it from segment headers and the `_time` column (storage/time-counts.ts) on the
 * main thread, without query worker sessions, and hands back the same partial a session would.
 */
import { TIME_COLUMN } from '../../storage/core/event';
import { countByTime } from '../../storage/time-counts';
import type { ScanPlan, ScanRequest, SegmentUnit } from '../../storage/scan';
import type { QueryPlan } from '../plan/plan';
import type { ShardResult } from './shard-session';

/** The step when a shard may count `plan` from headers (no shard stage filters or changes rows); null otherwise. */
export function intervalCountStep(plan: QueryPlan): number | null {
  const boundary = plan.boundary;
  if (boundary.kind !== 'stats' || boundary.countsPerInterval === undefined || plan.shardOps.length > 0) return null;
  return boundary.countsPerInterval;
}

/** How the executor reads stored blocks (ScanSource.readSegmentBlocks). */
type ReadBlocks = (
  reads: readonly { unit: SegmentUnit; block: number; stored: string[]; rawFrames: null; rawOwnTokens: null }[],
) => Promise<(Buffer | null)[][]>;

export async function countIntervals(
  readBlocks: ReadBlocks,
  scanPlan: ScanPlan,
  request: ScanRequest,
  step: number,
  plan: QueryPlan,
): Promise<ShardResult> {
  const stats = scanPlan.stats;
  const counted = await countByTime(scanPlan, request, step, async (blocks) => {
    const reads = blocks.map(({ unit, block }) => ({ unit, block, stored: [TIME_COLUMN], rawFrames: null, rawOwnTokens: null }));
    const buffers = await readBlocks(reads);
    return buffers.map((stored) => {
      stats.bytesRead += stored[0]?.length ?? 0;
      return stored[0];
    });
  });
  stats.segmentsScanned += scanPlan.segments.length;
  const starts = [...counted.counts.keys()];
  const rows = starts.map((start) => counted.counts.get(start)!);
  const total = rows.reduce((sum, n) => sum + n, 0);
  stats.rowsRead += total - counted.rowsFromHeaders;
  const aggregates = plan.boundary.kind === 'stats' ? plan.boundary.spec.aggregates.length : 0;
  return {
    matched: total,
    newest: null,
    sorted: null,
    all: null,
    // A count's partial state is its bare number (aggregates/count.ts).
    partial: { groupCount: starts.length, keys: [starts], states: Array.from({ length: aggregates }, () => rows) },
    opStats: null,
    stats,
    memoryBytes: starts.length * 16,
  };
}
