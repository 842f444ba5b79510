/**
 * Ring epochs: the membership the placement ring uses, and from when. A change of members takes
 * effect a few heartbeats ahead, so that every node has heard of it before its first event
 * arrives. An epoch that starts inside a bucket splits it there (storage/partition.ts pieceOf):
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
}

/** Epoch starts fall on whole seconds: easier to read in a status, and a split that is one. */
const START_GRANULARITY_MICROS = 1_000_000;

/** The first whole second `leadMicros` (a few heartbeats) after `nowMicros`: the start of a new epoch decided now. */
export function nextEpochStart(nowMicros: number, leadMicros: number): number {
  return Math.ceil((nowMicros + leadMicros) / START_GRANULARITY_MICROS) * START_GRANULARITY_MICROS;
}

/** The epoch in force at a piece's start (a key's bucket): the last one whose start is at or before it. */
export function epochAt(epochs: readonly RingEpoch[], bucketMicros: number): RingEpoch {
  let found: RingEpoch | undefined;
  for (const epoch of epochs) if (epoch.fromMicros <= bucketMicros && (found === undefined || epoch.epoch > found.epoch)) found = epoch;
  if (found === undefined) throw new Error(`no ring epoch is in force at ${bucketMicros}`);
  return found;
}
