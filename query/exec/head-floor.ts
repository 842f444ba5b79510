/**
 * The floor of a `head N` (newest first) shared by every scan that answers one query: once any
 * of them holds N rows, the N-th newest time is a floor that no row at or below it can cross, in
 * any scan, since the answer already has N rows above it. A scan raises the floor when its own
 * rows rise and stops before a unit whose newest time is at or below it. On one node the scan is
 * alone; over a cluster the coordinator passes each shard's raises on to the others, so a shard
 * holding only older data stops as soon as another has filled the head.
 */
export class HeadFloor {
  private floor: number;
  private readonly listeners = new Set<(floor: number) => void>();

  constructor(initial = -Infinity) {
    this.floor = initial;
  }

  /** Rows at or below this time cannot enter the answer. */
  get current(): number {
    return this.floor;
  }

  /** Raises the floor to `time` if that is higher; listeners hear of every rise. */
  raise(time: number): void {
    if (!(time > this.floor)) return;
    this.floor = time;
    for (const listener of this.listeners) listener(time);
  }

  /** Calls `listener` on every later rise; returns the unsubscribe. */
  onRaise(listener: (floor: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
