/**
 * The hot-source spill. A (host, source) pair's events go to its home partition (partition.ts),
 * but one chatty host or service often sends most of a cluster's volume, and a pure hash of the
 * pair would pin all of it on the `replication_factor` owners of one key. Since a query asks
 * every partition key in its range anyway, the partition need not be a pure function of the
 * event. So, within one ingest request, a pair's first SPILL_EVENTS events go to its home
 * partition and each further SPILL_EVENTS to the next one: event n (from 0) of the pair in the
 * request goes to `(home + floor(n / SPILL_EVENTS)) mod partitions`.
 *
 * A pair with fewer events in a request stays home; a request of 10,000 events from one host
 * spreads over min(partitions, 40) partitions. With one partition (a node outside a cluster)
 * nothing moves. The rule depends on the request's events and their order alone, so the general
 * path (event-chunk.ts) and the byte scanner (node/ingest/native-scan.ts) place every event
 * alike, and replaying a request's record places it again as it was.
 */
import type { LogEvent } from './event';
import { homePartition, pairText } from './partition';

/**
 * Events of a pair a request keeps in one partition before spilling to the next. Shippers send
 * 1,000 to 10,000 events a request (Filebeat 1,600, the OpenTelemetry collector 8,192, Vector up
 * to 10 MB): a hot pair in such a request spreads over 4 to 16 partitions, while each chunk of it
 * keeps at least 256 rows, so its columns, dictionaries and per-owner writes stay efficient.
 */
export const SPILL_EVENTS = 256;

/** The partition of the pair's event `seen` (counted from 0 within the request). */
export function spilledPartition(home: number, seen: number, partitions: number): number {
  return (home + Math.floor(seen / SPILL_EVENTS)) % partitions;
}

interface PairCount {
  home: number;
  seen: number;
}

/** The partitions of one request's events, given in request order. */
export class RequestPartitioner {
  private readonly pairs = new Map<string, PairCount>();

  constructor(private readonly partitions: number) {}

  /** The next event's partition. */
  next(event: LogEvent): number {
    if (this.partitions <= 1) return 0;
    const text = pairText(event);
    let pair = this.pairs.get(text);
    if (pair === undefined) {
      pair = { home: homePartition(text, this.partitions), seen: 0 };
      this.pairs.set(text, pair);
    }
    return spilledPartition(pair.home, pair.seen++, this.partitions);
  }
}
