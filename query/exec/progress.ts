/**
 * Live counters of a running query, fed by the scan: what `GET /query/jobs/{id}` reports as
 * `progress` and what profiles summarize.
 */
import type { ScanStats } from '../../storage/scan';

export class QueryProgress {
  phase = 'queued';
  readonly startedAt = performance.now();
  unitsTotal = 0;
  unitsDone = 0;
  private stats: ScanStats | null = null;

  attach(stats: ScanStats): void {
    this.stats = stats;
  }

  get scanStats(): ScanStats | null {
    return this.stats;
  }

  snapshot(): Record<string, number | string> {
    const stats = this.stats;
    return {
      phase: this.phase,
      segments_total: stats?.segmentsTotal ?? 0,
      segments_scanned: stats?.segmentsScanned ?? 0,
      segments_dispatched: stats?.segmentsScanned ?? 0,
      segments_skipped_index: stats?.segmentsSkippedIndex ?? 0,
      segments_skipped_time: stats?.segmentsSkippedTime ?? 0,
      segments_skipped_stats: stats?.segmentsSkippedStats ?? 0,
      segments_skipped_bloom: stats?.segmentsSkippedBloom ?? 0,
      segments_skipped_range: stats?.blocksSkippedRange ?? 0,
      buffered_events: stats?.bufferedEvents ?? 0,
      rows_read_so_far: stats?.rowsRead ?? 0,
      units_total: this.unitsTotal,
      units_done: this.unitsDone,
      elapsed_ms: Math.round(performance.now() - this.startedAt),
    };
  }
}
