/**
 * A node's own storage counts, as heartbeat replies and NodeInfo.Stats carry them to the other
 * nodes for /cluster/status.
 */
import type { StorageEngine } from '../../storage/engine';

export interface NodeStats {
  /** Stored events: segments and write buffer together. */
  events: number;
  segments: number;
  bufferedEvents: number;
  bufferedBytes: number;
  /** Bytes of the data dir on disk. */
  storageBytes: number;
  /** Names of the indexes it holds events of, sorted. */
  indexes: string[];
  /** The newest event time it holds (microseconds); null when it holds none. */
  newestEventMicros: number | null;
}

export function engineNodeStats(engine: StorageEngine): NodeStats {
  const stats = engine.stats();
  return {
    // What users stored: the audit log's entries are the server's.
    events: stats.user.totalEvents,
    segments: stats.segmentCount,
    bufferedEvents: stats.bufferedEvents,
    bufferedBytes: stats.bufferedBytes,
    storageBytes: engine.diskBytes(),
    indexes: stats.indexes,
    newestEventMicros: stats.newestEvent,
  };
}

/**
 * The same counts for up to `maxAgeMs`: every peer asks each heartbeat, and the byte count walks
 * the data dir.
 */
export function cachedStats(source: () => NodeStats, maxAgeMs: number): () => NodeStats {
  let taken = -Infinity;
  let last: NodeStats | null = null;
  return () => {
    const now = Date.now();
    if (last === null || now - taken > maxAgeMs) {
      last = source();
      taken = now;
    }
    return last;
  };
}
