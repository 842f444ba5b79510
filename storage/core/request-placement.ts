/**
 * Where the events of one ingest request go: the chunk of each event's placement key, decided in
 * request order. Both ingest paths place through this module, the general one (chunkEvents in
 * event-chunk.ts) and the byte scanner (node/ingest/native-scan.ts), so they place every event
 * alike, and replaying a request's record places it again as it was.
 *
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
 * nothing moves. The rule depends on the request's events and their order alone.
 */
import type { LogEvent } from './event';
import { homePartition, keyString, pairText, pieceEnd, pieceOf, type PartitionKey, type Placement } from './partition';

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

/**
 * The spill of one request's pairs, each known by a code: dense from 0, in order of first
 * appearance. A caller finds the code its own way (a string map, or a dictionary of the pair's bytes).
 */
export class PairSpill {
  private readonly homes: number[] = [];
  private readonly seen: number[] = [];

  constructor(private readonly partitions: number) {}

  /** How many pairs are known: the code the next new pair gets. */
  get pairCount(): number {
    return this.homes.length;
  }

  /** Adds the pair of code `pairCount`, given as pairText gives it. */
  addPair(pair: string): void {
    this.homes.push(homePartition(pair, this.partitions));
    this.seen.push(0);
  }

  /** The partition of pair `code`'s next event. */
  next(code: number): number {
    return spilledPartition(this.homes[code], this.seen[code]++, this.partitions);
  }
}

/** The partitions of one request's events, given in request order. */
export class RequestPartitioner {
  private readonly codes = new Map<string, number>();
  private readonly spill: PairSpill;

  constructor(private readonly partitions: number) {
    this.spill = new PairSpill(partitions);
  }

  /** The next event's partition. */
  next(event: LogEvent): number {
    if (this.partitions <= 1) return 0;
    const text = pairText(event);
    let code = this.codes.get(text);
    if (code === undefined) {
      code = this.spill.pairCount;
      this.codes.set(text, code);
      this.spill.addPair(text);
    }
    return this.spill.next(code);
  }
}

/** A chunk with its key and where its piece of a bucket ends. */
interface KeyedChunk<C> {
  key: PartitionKey;
  end: number;
  chunk: C;
}

/** One request's chunks by placement key, in order of first appearance; `create` makes the chunk of a new key. */
export class KeyedChunks<C> {
  private readonly byKey = new Map<string, C>();
  private lastEntry: KeyedChunk<C> | null = null;
  /** The chunk each partition's events went to last: with several partitions, consecutive events mostly alternate between them. */
  private readonly lastOfPartition: (KeyedChunk<C> | undefined)[] = [];

  constructor(
    private readonly placement: Placement,
    private readonly create: (key: PartitionKey) => C,
  ) {}

  /** The chunk the previous event went to (null before the first). */
  get last(): C | null {
    return this.lastEntry === null ? null : this.lastEntry.chunk;
  }

  get size(): number {
    return this.byKey.size;
  }

  values(): IterableIterator<C> {
    return this.byKey.values();
  }

  /** The chunk of an event's key (its partition decided by the caller). */
  chunkFor(index: string, time: number, partition: number): C {
    // Consecutive events mostly share their key, or the key their partition had last: reuse its
    // chunk without building a key string.
    const last = this.lastEntry;
    if (last !== null && partition === last.key.partition && holds(last, index, time)) return last.chunk;
    const ofPartition = partition >= 0 ? this.lastOfPartition[partition] : undefined;
    if (ofPartition !== undefined && holds(ofPartition, index, time)) {
      this.lastEntry = ofPartition;
      return ofPartition.chunk;
    }
    const placement = this.placement;
    const key: PartitionKey = { index, bucket: pieceOf(time, placement), partition };
    const name = keyString(key);
    let chunk = this.byKey.get(name);
    if (chunk === undefined) {
      chunk = this.create(key);
      this.byKey.set(name, chunk);
    }
    const entry = { key, end: pieceEnd(key.bucket, placement), chunk };
    this.lastEntry = entry;
    if (partition >= 0) this.lastOfPartition[partition] = entry;
    return chunk;
  }
}

/** Whether an event of `index` at `time` falls in the entry's key (its partition already matched). */
function holds<C>(entry: KeyedChunk<C>, index: string, time: number): boolean {
  return index === entry.key.index && time >= entry.key.bucket && time < entry.end;
}
