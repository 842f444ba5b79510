/**
 * The head floors of the fragments this node is running for other coordinators, by the id each
 * caller gave its run: ShardQuery.RaiseFloor finds a running fragment here. Each entry remembers
 * the highest floor its caller sent, so the node tells its caller only of rises it made itself.
 */
import { HeadFloor } from '../../query/exec/head-floor';

export class FragmentFloor {
  readonly floor: HeadFloor;
  /** The highest floor the caller sent (it need not hear of it again). */
  fromCaller: number;

  constructor(initial: number) {
    this.floor = new HeadFloor(initial);
    this.fromCaller = initial;
  }

  /** The caller raised the floor. */
  raiseFromCaller(time: number): void {
    if (time > this.fromCaller) this.fromCaller = time;
    this.floor.raise(time);
  }

  /** Calls `tell` with each rise this node made, not the caller. */
  onOwnRaise(tell: (time: number) => void): () => void {
    return this.floor.onRaise((time) => {
      if (time > this.fromCaller) tell(time);
    });
  }
}

export class FragmentFloors {
  private readonly running = new Map<string, FragmentFloor>();

  /** Registers a run (an empty id: the caller will not raise); returns its floor and the release. */
  open(fragmentId: string, initial: number): { entry: FragmentFloor; release: () => void } {
    const entry = new FragmentFloor(initial);
    if (fragmentId === '') return { entry, release: () => undefined };
    this.running.set(fragmentId, entry);
    const release = (): void => {
      if (this.running.get(fragmentId) === entry) this.running.delete(fragmentId);
    };
    return { entry, release };
  }

  /** Raises a running fragment's floor; false when no such fragment runs (it ended, or never came). */
  raise(fragmentId: string, time: number): boolean {
    const entry = this.running.get(fragmentId);
    if (entry === undefined) return false;
    entry.raiseFromCaller(time);
    return true;
  }
}
