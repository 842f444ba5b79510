/**
 * Hints: the writes a down owner missed, kept on the node that received them until the owner is
 * back. A hint is the chunk record the owner would have been sent, durable in this node's RocksDB
 * (it survives kill -9) under `<target>/<seq>`, and replayed to the owner in seq order. The owner
 * commits each replayed record together with the mark "hints of <origin> applied up to <seq>"
 * (AppliedHints), so a replay that is repeated after a lost answer is applied once. A hint also
 * carries the id of the share part it stands for: the owner may have applied that part already,
 * from a Write whose answer never came back (applied-shares.ts).
 */
import { randomBytes } from 'crypto';
import type { NodeRecords } from '../../storage/node-records';
import type { WriteOp } from '../../storage/core/rocks';
import { OldestWindow } from './oldest-window';
import { shareIdCreatedMs } from './share-ids';

const SEQ_DIGITS = 16;
/** Keys of the store's own records; hint keys are `<target>/<seq>`, these have no '/'. */
const NEXT_SEQ_KEY = '~next';
const LOG_ID_KEY = '~log';

function hintKey(target: string, seq: number): string {
  return `${target}/${String(seq).padStart(SEQ_DIGITS, '0')}`;
}

export interface Hint {
  seq: number;
  record: Buffer;
  /** The share part it stands for (share-ids.ts); '' for a hint kept without one. */
  shareId: string;
}

/**
 * A hint's stored value: `H`, the share id's length (u16), the id, then the record. A value
 * that starts with a chunk record's kind byte is a hint kept without an id.
 */
const ENVELOPE = 0x48;

function encodeHint(record: Buffer, shareId: string): Buffer {
  const id = Buffer.from(shareId, 'latin1');
  const head = Buffer.alloc(3);
  head[0] = ENVELOPE;
  head.writeUInt16LE(id.length, 1);
  return Buffer.concat([head, id, record]);
}

function decodeHint(value: Buffer): { record: Buffer; shareId: string } {
  if (value[0] !== ENVELOPE || value.length < 3) return { record: value, shareId: '' };
  const length = value.readUInt16LE(1);
  return { shareId: value.toString('latin1', 3, 3 + length), record: value.subarray(3 + length) };
}

/** The hints this node holds, by target node. */
export class HintStore {
  private readonly counts = new Map<string, number>();
  private readonly bytes = new Map<string, number>();
  /** When the request of each pending hint was taken (0: unknown), by target and seq. */
  private readonly createdMs = new Map<string, OldestWindow>();
  /** Adds, one at a time: a hint is durable before the next seq is written, so a replay that reads seq n has every seq below it. */
  private adding: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly records: NodeRecords,
    private nextSeq: number,
    /**
     * This store's identity, made with it: an owner keeps its applied marks per (origin, log), so
     * a node that starts again with an empty data dir (seqs from 1 again) is a new log there.
     */
    readonly logId: string,
  ) {}

  static async open(records: NodeRecords): Promise<HintStore> {
    const next = await records.get(NEXT_SEQ_KEY);
    let logId = (await records.get(LOG_ID_KEY))?.toString('utf8');
    if (logId === undefined) {
      logId = randomBytes(8).toString('hex');
      await records.put(LOG_ID_KEY, Buffer.from(logId));
    }
    const store = new HintStore(records, next === null ? 1 : Number(next.toString('utf8')), logId);
    for await (const { key, value } of records.scan()) {
      const slash = key.lastIndexOf('/');
      if (slash === -1) continue;
      const target = key.slice(0, slash);
      store.count(target, 1, value.length);
      store.noteCreated(target, Number(key.slice(slash + 1)), decodeHint(value).shareId);
    }
    return store;
  }

  /** Keeps a record for `target`; durable once resolved. Seqs only grow, across restarts too. */
  add(target: string, record: Buffer, shareId = ''): Promise<number> {
    if (target.includes('/')) return Promise.reject(new Error(`a node id has no '/': ${target}`));
    const added = this.adding.then(async () => {
      const seq = this.nextSeq;
      const value = shareId === '' ? record : encodeHint(record, shareId);
      await this.records.write([
        { key: hintKey(target, seq), value },
        { key: NEXT_SEQ_KEY, value: Buffer.from(String(seq + 1)) },
      ]);
      this.nextSeq = seq + 1;
      this.count(target, 1, value.length);
      this.noteCreated(target, seq, shareId);
      return seq;
    });
    this.adding = added.catch(() => undefined);
    return added;
  }

  /** Hints held for `target`. */
  pending(target: string): number {
    return this.counts.get(target) ?? 0;
  }

  /** Bytes of the hints held for `target`. */
  pendingBytes(target: string): number {
    return this.bytes.get(target) ?? 0;
  }

  /** Targets with hints pending, and how many. */
  pendingByTarget(): Map<string, number> {
    return new Map([...this.counts].filter(([, count]) => count > 0));
  }

  /** Up to `limit` of the oldest hints for `target`, in seq order. */
  async oldest(target: string, limit: number): Promise<Hint[]> {
    const out: Hint[] = [];
    for await (const { key, value } of this.records.scan(`${target}/`)) {
      out.push({ seq: Number(key.slice(key.lastIndexOf('/') + 1)), ...decodeHint(value) });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Drops a hint the target has applied. */
  async done(target: string, hint: Hint): Promise<void> {
    await this.records.delete(hintKey(target, hint.seq));
    this.count(target, -1, -(hint.shareId === '' ? hint.record.length : 3 + hint.shareId.length + hint.record.length));
    this.createdMs.get(target)?.remove(hint.seq);
  }

  /** Drops every hint held for `target` (a node that was forgotten); resolves with how many. */
  async dropAll(target: string): Promise<number> {
    let dropped = 0;
    for (;;) {
      const batch = await this.oldest(target, 1000);
      if (batch.length === 0) return dropped;
      for (const hint of batch) await this.done(target, hint);
      dropped += batch.length;
    }
  }

  /** When the oldest request of a hint pending for `target` was taken; 0 when unknown, null with none pending. */
  oldestCreatedMs(target: string): number | null {
    return this.createdMs.get(target)?.min() ?? null;
  }

  private noteCreated(target: string, seq: number, shareId: string): void {
    let created = this.createdMs.get(target);
    if (created === undefined) this.createdMs.set(target, (created = new OldestWindow()));
    created.add(seq, shareIdCreatedMs(shareId) ?? 0);
  }

  private count(target: string, hints: number, bytes: number): void {
    const left = (this.counts.get(target) ?? 0) + hints;
    if (left > 0) {
      this.counts.set(target, left);
      this.bytes.set(target, (this.bytes.get(target) ?? 0) + bytes);
    } else {
      this.counts.delete(target);
      this.bytes.delete(target);
    }
  }
}

/**
 * On the owner: how far each origin's hints are applied, so a repeated replay is applied once.
 * `origin` names a hint log: the node that kept the hints and its HintStore.logId.
 */
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
