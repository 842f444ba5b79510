/**
 * On an owner: the share parts it applied (share-ids.ts), each id committed in the same batch as
 * the part's events, so a part applied before its acknowledgement was lost is not applied again
 * when it comes back, as a late Write or as a replayed hint. Records are `<origin>/<share id>` in
 * the node's records; ids of one origin sort by the time it took their request, and each message
 * from the origin says before when all its parts for this node are settled (share_floor_ms), so
 * older ids are dropped: the store holds what is in flight or hinted, not every write ever made.
 */
import type { NodeRecords } from '../../storage/node-records';
import type { WriteOp } from '../../storage/core/rocks';
import { shareIdCreatedMs } from './share-ids';

/**
 * How far behind an origin's floor ids are kept: a part the origin sent before its floor may still
 * sit unread in this node's connection (a node stopped and resumed), and clocks step.
 */
export const FLOOR_MARGIN_MS = 10 * 60_000;
/** An origin's ids are swept at most this often. */
const SWEEP_EVERY_MS = 30_000;
const DELETE_BATCH = 1000;

export class AppliedShares {
  /** Parts being applied, by record key: a second copy waits for the first to commit or fail. */
  private readonly applying = new Map<string, Promise<unknown>>();
  private readonly sweptAtMs = new Map<string, number>();
  private sweeping: Promise<void> = Promise.resolve();

  constructor(
    private readonly records: NodeRecords,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Applies a part once: `apply` commits the events together with the given mark, unless the part
   * was applied before (resolves false then). Copies of one part run one after the other.
   */
  async applyOnce(origin: string, shareId: string, apply: (mark: WriteOp) => Promise<void>): Promise<boolean> {
    const key = `${origin}/${shareId}`;
    for (let running = this.applying.get(key); running !== undefined; running = this.applying.get(key))
      await running.catch(() => undefined);
    const run = (async () => {
      if ((await this.records.get(key)) !== null) return false;
      await apply(this.records.op(key, Buffer.from('1')));
      return true;
    })();
    this.applying.set(key, run);
    try {
      return await run;
    } finally {
      this.applying.delete(key);
    }
  }

  /** `origin` says its parts made before `floorMs` are settled: forgets its ids well before that, now and then. */
  floor(origin: string, floorMs: number): void {
    if (!(floorMs > 0)) return;
    const now = this.now();
    if (now - (this.sweptAtMs.get(origin) ?? 0) < SWEEP_EVERY_MS) return;
    this.sweptAtMs.set(origin, now);
    const before = floorMs - FLOOR_MARGIN_MS;
    this.sweeping = this.sweeping.then(() => this.sweep(origin, before)).catch(() => undefined);
  }

  /** Resolves once the sweeps asked for so far are done. */
  settled(): Promise<void> {
    return this.sweeping;
  }

  private async sweep(origin: string, beforeMs: number): Promise<void> {
    let doomed: string[] = [];
    for await (const { key } of this.records.scan(`${origin}/`)) {
      const created = shareIdCreatedMs(key.slice(origin.length + 1));
      if (created !== null && created >= beforeMs) break;
      doomed.push(key);
      if (doomed.length >= DELETE_BATCH) {
        await this.records.write(doomed.map((each) => ({ key: each, value: null })));
        doomed = [];
      }
    }
    if (doomed.length > 0) await this.records.write(doomed.map((each) => ({ key: each, value: null })));
  }
}
