/**
 * Reads what a (stopped) server stored, through the storage reader: the check that acknowledged
 * events are really there, independent of any query API.
 */
import { valueAt } from '../../storage/core/column';
import { StorageEngine } from '../../storage/engine';
import { indexMatcher, type ScanRequest } from '../../storage/scan';

export type StoredEvent = Record<string, unknown> & { _time: number; _raw: string; index: string };

/** Opens the data dir (the server must not be running), returns every event, then closes it. */
export async function readStoredEvents(dataDir: string): Promise<StoredEvent[]> {
  const engine = await StorageEngine.open({
    dataDir,
    placement: { bucketSpanMicros: 3600_000_000, partitions: 1 },
    flushIntervalMs: 3600_000,
    segmentMaxEvents: 262144,
    compressionLevel: 3,
    fsync: false,
    compactionIntervalMs: 3600_000,
    retentionMs: 100 * 365 * 24 * 3600_000,
    codecWorkers: 0,
  });
  try {
    const request: ScanRequest = {
      index: indexMatcher(['*']),
      fromMicros: -Number.MAX_SAFE_INTEGER,
      toMicros: Number.MAX_SAFE_INTEGER,
      columns: null,
    };
    const plan = await engine.planScan(request);
    const events: StoredEvent[] = [];
    for await (const batch of engine.scanBatches(plan, request)) {
      for (let row = 0; row < batch.rowCount; row++) {
        const event: Record<string, unknown> = {};
        for (const [name, column] of batch.columns) {
          const value = valueAt(column, row);
          if (value !== null) event[name] = value;
        }
        events.push(event as StoredEvent);
      }
    }
    return events;
  } finally {
    // Close without flushing what was replayed, so the data dir stays as the server left it.
    await engine.closePools();
    await engine.rocks.close();
  }
}
