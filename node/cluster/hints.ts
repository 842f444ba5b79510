/**
 * Hints: the writes a down owner missed, kept on the node that received them until the owner is
 * back. A hint is the chunk record the owner would have been sent, durable in this node's RocksDB
 * (it survives kill -9) under `<target>/<seq>`, and replayed to the owner in seq order. The owner
 * commits each replayed record together with the mark "hints of <origin> applied up to <seq>"
 * (AppliedHints), so a replay that is repeated after a lost answer is applied once.
 */
import type { NodeRecords } from '../../storage/node-records';
import type { WriteOp } from '../../storage/rocks';

const SEQ_DIGITS = 16;
const NEXT_SEQ_KEY = '~next';

function hintKey(target: string, seq: number): string {
  return `${target}/${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

export interface Hint {
  seq: number;
  record: Buffer;
}

/** The hints this node holds, by target node. */
export class HintStore {
  private readonly counts = new Map<string, number>();

  private constructor(
    private readonly records: NodeRecords,
    private nextSeq: number,
  ) {}

  static async open(records: NodeRecords): Promise<HintStore> {
    const next = await records.get(NEXT_SEQ_KEY);
    const store = new HintStore(records, next === null ? 1 : Number(next.toString('utf8')));
    for await (const { key } of records.scan()) {
      if (key === NEXT_SEQ_KEY) continue;
      const target = key.slice(0, key.lastIndexOf('/'));
      store.counts.set(target, (store.counts.get(target) ?? 0) + 1);
    }
    return store;
  }

  /** Keeps a record for `target`; durable once resolved. Seqs only grow, across restarts too. */
  async add(target: string, record: Buffer): Promise<number> {
    if (target.includes('/')) throw new Error(`a node id has no '/': ${target}`);
    const seq = this.nextSeq++;
    await this.records.write([
      { key: hintKey(target, seq), value: record },
      { key: NEXT_SEQ_KEY, value: Buffer.from(String(this.nextSeq)) },
    ]);
    this.counts.set(target, (this.counts.get(target) ?? 0) + 1);
    return seq;
  }

  /** Hints held for `target`. */
  pending(target: string): number {
    return this.counts.get(target) ?? 0;
  }

  /** Targets with hints pending, and how many. */
  pendingByTarget(): Map<string, number> {
    return new Map([...this.counts].filter(([, count]) => count > 0));
  }

  /** Up to `limit` of the oldest hints for `target`, in seq order. */
  async oldest(target: string, limit: number): Promise<Hint[]> {
    const out: Hint[] = [];
    for await (const { key, value } of this.records.scan(`${target}/`)) {
      out.push({ seq: Number(key.slice(key.lastIndexOf('/') + 1)), record: value });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Drops a hint the target has applied. */
  async done(target: string, seq: number): Promise<void> {
    await this.records.delete(hintKey(target, seq));
    const left = (this.counts.get(target) ?? 1) - 1;
    if (left > 0) this.counts.set(target, left);
    else this.counts.delete(target);
  }
}

/** On the owner: how far each origin's hints are applied, so a repeated replay is applied once. */
export class AppliedHints {
  private readonly marks = new Map<string, number>();

  private constructor(private readonly records: NodeRecords) {}

  static async open(records: NodeRecords): Promise<AppliedHints> {
    const applied = new AppliedHints(records);
    for await (const { key, value } of records.scan()) applied.marks.set(key, Number(value.toString('utf8')));
    return applied;
  }

  /** Whether the hint `seq` of `origin` was applied already. */
  applied(origin: string, seq: number): boolean {
    return seq <= (this.marks.get(origin) ?? 0);
  }

  /** The write that marks `seq` applied: commit it in the same batch as the hint's record. */
  markOp(origin: string, seq: number): WriteOp {
    return this.records.op(origin, Buffer.from(String(seq)));
  }

  /** Call once the batch holding markOp is durable. */
  committed(origin: string, seq: number): void {
    if (seq > (this.marks.get(origin) ?? 0)) this.marks.set(origin, seq);
  }
}
