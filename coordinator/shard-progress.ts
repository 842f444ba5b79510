/**
 * Progress of a query over several shards: each shard reports its counters now and then (a
 * remote one in its Query stream, this node's own fragment from its QueryProgress), and the job's
 * progress shows their sum. A shard that failed is dropped from the sum: its keys are counted
 * again by the owners that answer for them instead.
 */
import { QueryProgress } from '../query/exec/progress';
import type { ShardResult } from '../query/exec/shard-session';
import { emptyScanStats, type ScanStats } from '../storage/scan';

/** One shard's counters: its scan's numbers and its units. */
export type ShardCounters = Omit<ScanStats, 'decisions'> & { unitsTotal: number; unitsDone: number };

const SCAN_COUNTERS = [
  'segmentsTotal',
  'segmentsScanned',
  'segmentsSkippedIndex',
  'segmentsSkippedTime',
  'segmentsSkippedStats',
  'segmentsSkippedBloom',
  'blocksSkippedRange',
  'blocksSkippedBloom',
  'bufferedEvents',
  'rowsRead',
  'bytesRead',
  'blocksCached',
] as const satisfies readonly (keyof ShardCounters)[];

/** How often a running shard reports its counters. */
export const PROGRESS_INTERVAL_MS = 250;

export function countersOf(progress: QueryProgress): ShardCounters {
  const stats = progress.scanStats ?? emptyScanStats();
  const counters = { unitsTotal: progress.unitsTotal, unitsDone: progress.unitsDone } as ShardCounters;
  for (const name of SCAN_COUNTERS) counters[name] = stats[name];
  return counters;
}

/**
 * Calls `report` with the progress's counters every PROGRESS_INTERVAL_MS and, unless `reportOnStop`
 * is false (the caller hands the last counters on itself), once when stopped; returns the stop.
 */
export function reportProgress(progress: QueryProgress, report: (counters: ShardCounters) => void, reportOnStop = true): () => void {
  const ticker = setInterval(() => report(countersOf(progress)), PROGRESS_INTERVAL_MS);
  ticker.unref();
  return () => {
    clearInterval(ticker);
    if (reportOnStop) report(countersOf(progress));
  };
}

/** The job's progress as the sum of its shards' last counters. */
export class ProgressSum {
  private readonly shards = new Map<number, ShardCounters>();
  private readonly stats: ScanStats;

  constructor(
    private readonly target: QueryProgress,
    trace: boolean,
  ) {
    this.stats = emptyScanStats(trace);
    target.attach(this.stats);
  }

  /** Shard attempt `attempt` reported `counters`. */
  set(attempt: number, counters: ShardCounters): void {
    this.shards.set(attempt, counters);
    this.refresh();
  }

  /** The query starts over: every attempt's counts leave the sum. */
  clear(): void {
    this.shards.clear();
    this.refresh();
  }

  /** The attempt failed: its counts leave the sum. */
  drop(attempt: number): void {
    this.shards.delete(attempt);
    this.refresh();
  }

  /**
   * The end: every shard's last report came before its result, so the counters are final (as on
   * one node, from the scan's own figures: a result's stats hold only what its sessions counted);
   * the trace's decisions come from the results.
   */
  finish(results: readonly ShardResult[]): void {
    if (this.stats.decisions !== null) this.stats.decisions = results.flatMap((result) => result.stats.decisions ?? []);
  }

  private refresh(): void {
    let unitsTotal = 0;
    let unitsDone = 0;
    for (const name of SCAN_COUNTERS) this.stats[name] = 0;
    for (const counters of this.shards.values()) {
      unitsTotal += counters.unitsTotal;
      unitsDone += counters.unitsDone;
      for (const name of SCAN_COUNTERS) this.stats[name] += counters[name];
    }
    this.target.unitsTotal = unitsTotal;
    this.target.unitsDone = unitsDone;
  }
}
