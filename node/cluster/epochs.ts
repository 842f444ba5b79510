/**
 * Ring epochs: the membership the placement ring uses, and from when. A change of members takes
 * effect a few heartbeats ahead, so that every node has heard of it before its first event
 * arrives. An epoch that starts inside a bucket splits it there (storage/core/partition.ts pieceOf):
 * each piece of a bucket is placed by the epoch in force at the piece's start. So every node
 * computes the same owners without asking anyone, a new node takes writes within seconds, and old
 * data never moves.
 */

export interface RingEpoch {
  /** 0, 1, 2, ... in the order the epochs were decided. */
  epoch: number;
  /** The instant (microseconds) from which this epoch places data; 0 for the first. */
  fromMicros: number;
  /** Node ids in the ring, sorted. */
  members: string[];
  /**
   * How the epoch places keys (ring.ts): `dealt` deals each bucket's partitions over the members
   * in turn. Absent on epochs decided before layouts existed: those keep the consistent-hash ring,
   * so data they placed stays where it is.
   */
  layout?: EpochLayout;
}

/** The placement layouts an epoch may record. */
export const EPOCH_LAYOUTS = ['dealt'] as const;
export type EpochLayout = (typeof EPOCH_LAYOUTS)[number];
/** The layout of every epoch decided from now on. */
export const CURRENT_LAYOUT: EpochLayout = 'dealt';

/** Epoch starts fall on whole seconds: easier to read in a status, and a split that is one. */
const START_GRANULARITY_MICROS = 1_000_000;

/** The first whole second `leadMicros` (a few heartbeats) after `nowMicros`: the start of a new epoch decided now. */
export function nextEpochStart(nowMicros: number, leadMicros: number): number {
  return Math.ceil((nowMicros + leadMicros) / START_GRANULARITY_MICROS) * START_GRANULARITY_MICROS;
}

/**
 * The start of an epoch that would start at `soonestMicros`, moved so that no stored event changes
 * owners: when an event is stored in that bucket's start or later (a shipper's clock ahead;
 * `newestEventMicros` is the newest any node holds), one second into the newest event's bucket.
 * Those events were placed by the epochs before, under their bucket's own key: an epoch starting
 * at or before their bucket's start would place that key anew, and queries would ask the new
 * owners for it; one starting inside it splits it, and the key of its start keeps its owners.
 */
export function epochStartClearOf(soonestMicros: number, newestEventMicros: number, bucketSpanMicros: number): number {
  const newestBucket = Math.floor(newestEventMicros / bucketSpanMicros) * bucketSpanMicros;
  return soonestMicros > newestBucket ? soonestMicros : newestBucket + START_GRANULARITY_MICROS;
}

/** The epoch in force at a piece's start (a key's bucket): the last one whose start is at or before it. */
export function epochAt(epochs: readonly RingEpoch[], bucketMicros: number): RingEpoch {
  let found: RingEpoch | undefined;
  for (const epoch of epochs) if (epoch.fromMicros <= bucketMicros && (found === undefined || epoch.epoch > found.epoch)) found = epoch;
  if (found === undefined) throw new Error(`no ring epoch is in force at ${bucketMicros}`);
  return found;
}

/** The members of every epoch in force at some instant of `[fromMicros, toMicros)`: the nodes that may own a key there. */
export function membersInForce(epochs: readonly RingEpoch[], fromMicros: number, toMicros: number): Set<string> {
  const members = new Set<string>();
  if (!(fromMicros < toMicros)) return members;
  // Which epoch is in force changes only where one starts.
  const instants = [fromMicros, ...epochs.map((epoch) => epoch.fromMicros).filter((start) => start > fromMicros && start < toMicros)];
  for (const instant of instants) {
    if (!epochs.some((epoch) => epoch.fromMicros <= instant)) continue;
    for (const member of epochAt(epochs, instant).members) members.add(member);
  }
  return members;
}
