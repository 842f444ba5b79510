/**
 * On the node that takes writes: before when every share part it made for an owner is settled,
 * the owner's `share_floor_ms` (applied-shares.ts). A part is unsettled from the moment its
 * request is taken until it is acknowledged or kept as a hint, and a hint until it is replayed.
 */
import type { HintStore } from './hints';

export class ShareFloors {
  /** Requests in flight to each owner: the ms they were taken at, and how many parts of each. */
  private readonly inFlight = new Map<string, Map<number, number>>();

  constructor(
    private readonly hints: Pick<HintStore, 'oldestCreatedMs'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A part for `owner` of a request taken at `createdMs` is on its way. */
  begin(owner: string, createdMs: number): void {
    let times = this.inFlight.get(owner);
    if (times === undefined) this.inFlight.set(owner, (times = new Map()));
    times.set(createdMs, (times.get(createdMs) ?? 0) + 1);
  }

  /** That part is settled (acknowledged, hinted or refused). */
  end(owner: string, createdMs: number): void {
    const times = this.inFlight.get(owner);
    const left = (times?.get(createdMs) ?? 0) - 1;
    if (left > 0) times!.set(createdMs, left);
    else times?.delete(createdMs);
    if (times?.size === 0) this.inFlight.delete(owner);
  }

  /** Every part for `owner` made before this instant is settled; 0 when a hint's time is unknown. */
  floorFor(owner: string): number {
    let floor = this.now();
    for (const createdMs of this.inFlight.get(owner)?.keys() ?? []) floor = Math.min(floor, createdMs);
    const hinted = this.hints.oldestCreatedMs(owner);
    return hinted === null ? floor : Math.min(floor, hinted);
  }
}
