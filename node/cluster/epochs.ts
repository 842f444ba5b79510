/**
 * Ring epochs: the membership the placement ring uses, and from when. A change of members takes
 * effect at a bucket boundary far enough ahead that every node has heard of it before the first
 * event of that bucket arrives, and a bucket is always placed by the epoch in force at its start.
 * So every node computes the same owners without asking anyone, and old data never moves.
 */

export interface RingEpoch {
  /** 0, 1, 2, ... in the order the epochs were decided. */
  epoch: number;
  /** The bucket start (microseconds) from which this epoch places data; 0 for the first. */
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

/**
 * The first bucket boundary at least one whole bucket and `leadMicros` (a few heartbeats) after
 * `nowMicros`: the start of a new epoch decided now.
 */
export function nextEpochStart(nowMicros: number, bucketSpanMicros: number, leadMicros: number): number {
  const earliest = nowMicros + bucketSpanMicros + leadMicros;
  return Math.ceil(earliest / bucketSpanMicros) * bucketSpanMicros;
}

/** The epoch in force at a bucket's start: the last one whose start is at or before it. */
export function epochAt(epochs: readonly RingEpoch[], bucketMicros: number): RingEpoch {
  let found: RingEpoch | undefined;
  for (const epoch of epochs) if (epoch.fromMicros <= bucketMicros && (found === undefined || epoch.epoch > found.epoch)) found = epoch;
  if (found === undefined) throw new Error(`no ring epoch is in force at ${bucketMicros}`);
  return found;
}
