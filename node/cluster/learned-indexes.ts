/**
 * Index names a coordinator learnt from refusals (`indexes-unlisted`): a node held an index that a
 * query's globs match and the members' heartbeats did not carry yet. Known from then on, a name
 * lets the next glob queries list it rather than be refused and run again, until the heartbeats
 * carry it. A name stays `keepMs` after it was last learnt; a stale one only makes a query place
 * the keys of an index that holds nothing there. At most `maxNames` are kept, the newest.
 */
import { isValidIndexName } from '../../storage/core/event';

export class LearnedIndexNames {
  /** Name to when it was last learnt (ms), oldest first. */
  private readonly learnt = new Map<string, number>();

  constructor(
    private readonly keepMs: number,
    private readonly maxNames: number,
  ) {}

  /** Notes `names` (a peer's: any that is not an index name is left out) as learnt at `nowMs`. */
  learn(names: readonly string[], nowMs: number): void {
    for (const name of names) {
      if (!isValidIndexName(name)) continue;
      this.learnt.delete(name);
      this.learnt.set(name, nowMs);
    }
    while (this.learnt.size > this.maxNames) this.learnt.delete(this.learnt.keys().next().value!);
  }

  /** The names learnt within `keepMs` of `nowMs`; older ones are forgotten. */
  current(nowMs: number): string[] {
    for (const [name, at] of this.learnt) {
      if (nowMs - at < this.keepMs) break;
      this.learnt.delete(name);
    }
    return [...this.learnt.keys()];
  }
}
