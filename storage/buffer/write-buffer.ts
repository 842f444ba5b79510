/**
 * The write buffer: the durable side is one RocksDB record per acknowledged ingest batch
 * (`w:<seq>`), the readable side is a generation of memtables. An append resolves only once its
 * record is in RocksDB's WAL (and fsynced with `storage.fsync`); then its events enter the
 * active generation, so an acknowledged event is visible to the next query.
 *
 * A flush rotates the active generation out, writes its segments and deletes exactly the records
 * of that generation in the same atomic batch: no event is lost or stored twice across a crash.
 *
 * A record that does not decode at replay (written by a build with other rules, or a flipped bit)
 * would fail every flush if it were replayed: it is moved to the quarantine (`q:`, keys.ts) in
 * one batch with its removal from the buffer, and named in the replay's result, so the node starts
 * and works and the bytes stay for an operator to look at.
 */
import type { LogEvent } from '../core/event';
import { checkChunk } from './chunk-check';
import { chunkEventsOf } from './chunk-read';
import { decodeChunkRecord, isChunkRecordKind } from './chunk-record';
import { chunkEvents, type EventChunk } from './event-chunk';
import { describeQuarantineKey, quarantineKey, WAL_PREFIX, walKey, walSeqOf } from '../core/keys';
import { MemTable } from './memtable';
import { keyString, type Placement } from '../core/partition';
import type { Rocks, WriteOp } from '../core/rocks';

/** Record kinds: 0 is a JSON array of events (appendEvents); chunk records are of the kinds chunk-record.ts reads. */
export const JSON_EVENTS_KIND = 0;

/** A write-buffer record set aside at replay: its seq in the buffer, where it is now, and why. */
export interface QuarantinedRecord {
  seq: number;
  /** The quarantine key, as log lines name it (`q:<ms>/<seq>`). */
  key: string;
  reason: string;
}

export interface ReplayResult {
  records: number;
  events: number;
  quarantined: QuarantinedRecord[];
}

export class Generation {
  readonly tables = new Map<string, MemTable>();
  readonly seqs: number[] = [];
  events = 0;

  constructor(readonly id: number) {}

  /** Adds a record's chunks; returns the event-time range it added per index (for cache invalidation). */
  add(seq: number, chunks: readonly EventChunk[]): Map<string, { min: number; max: number }> {
    this.seqs.push(seq);
    const touched = new Map<string, { min: number; max: number }>();
    for (const chunk of chunks) {
      if (chunk.count === 0) continue;
      const name = keyString(chunk.key);
      let table = this.tables.get(name);
      if (table === undefined) {
        table = new MemTable(chunk.key);
        this.tables.set(name, table);
      }
      table.add(chunk);
      this.events += chunk.count;
      const range = touched.get(chunk.key.index);
      if (range === undefined) touched.set(chunk.key.index, { min: chunk.minTime, max: chunk.maxTime });
      else {
        range.min = Math.min(range.min, chunk.minTime);
        range.max = Math.max(range.max, chunk.maxTime);
      }
    }
    return touched;
  }
}

/** One change to readable data: an index and the event-time range it touched. */
export interface DataChange {
  version: number;
  index: string;
  min: number;
  max: number;
}

/**
 * Recent changes, so a result cache can tell whether anything it answered from has changed
 * since: appends (by index and time range) and removals (retention: `index` '*').
 */
export class ChangeLog {
  version = 0;
  private readonly entries: DataChange[] = [];

  constructor(private readonly capacity = 8192) {}

  record(index: string, min: number, max: number): void {
    this.version++;
    this.entries.push({ version: this.version, index, min, max });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /**
   * True when a change after `since` may affect a result over these indexes and [from, to);
   * also true when the log no longer reaches back to `since`.
   */
  changedSince(since: number, matches: (index: string) => boolean, from: number, to: number): boolean {
    if (since === this.version) return false;
    if (this.entries.length === 0 || this.entries[0].version > since + 1) return true;
    for (let i = this.entries.length - 1; i >= 0 && this.entries[i].version > since; i--) {
      const change = this.entries[i];
      if ((change.index === '*' || matches(change.index)) && change.max >= from && change.min < to) return true;
    }
    return false;
  }
}

export class WriteBuffer {
  readonly changes = new ChangeLog();
  private seq = 0;
  private generationCounter = 0;
  private active: Generation;
  /** Rotated generations whose segments are being written; still readable. */
  private readonly sealed: Generation[] = [];

  constructor(
    private readonly rocks: Rocks,
    private placement: Placement,
  ) {
    this.active = new Generation(++this.generationCounter);
  }

  setPlacement(placement: Placement): void {
    this.placement = placement;
  }

  /**
   * Re-reads the records left by the previous run into the active generation; a record that does
   * not decode is moved to the quarantine instead (see above).
   */
  async replay(): Promise<ReplayResult> {
    const now = Date.now();
    let records = 0;
    let events = 0;
    const quarantined: QuarantinedRecord[] = [];
    const setAside: WriteOp[] = [];
    for await (const { key, value } of this.rocks.scan(WAL_PREFIX)) {
      const seq = walSeqOf(key);
      this.seq = Math.max(this.seq, seq);
      let chunks: EventChunk[];
      try {
        chunks = this.decodeRecord(value);
      } catch (error) {
        const target = quarantineKey(now, seq);
        setAside.push({ type: 'put', key: target, value }, { type: 'del', key });
        quarantined.push({ seq, key: describeQuarantineKey(target), reason: (error as Error).message });
        continue;
      }
      this.active.add(seq, chunks);
      records++;
      for (const chunk of chunks) events += chunk.count;
    }
    await this.rocks.write(setAside, true);
    return { records, events, quarantined };
  }

  /** A record's chunks, keyed by the current placement. */
  private decodeRecord(value: Buffer): EventChunk[] {
    if (isChunkRecordKind(value[0])) {
      const { chunks, placement } = decodeChunkRecord(value);
      const same = placement.bucketSpanMicros === this.placement.bucketSpanMicros && placement.partitions === this.placement.partitions;
      return same ? chunks : chunkEvents(chunks.flatMap(chunkEventsOf), this.placement);
    }
    if (value[0] !== JSON_EVENTS_KIND) throw new Error(`no decoder for record kind ${value[0]}`);
    const chunks = chunkEvents(JSON.parse(value.subarray(1).toString('utf8')) as LogEvent[], this.placement);
    chunks.forEach((chunk, c) => checkChunk(chunk, this.placement, `chunk ${c}`));
    return chunks;
  }

  /**
   * Makes a chunk record (chunk-record.ts) durable, then its chunks readable. `chunks` are the
   * record's own (views into it), keyed by the current placement.
   */
  async appendRecord(chunks: readonly EventChunk[], value: Buffer, sync: boolean, alongside: readonly WriteOp[] = []): Promise<void> {
    if (!isChunkRecordKind(value[0])) throw new Error(`not a chunk record (kind ${value[0]})`);
    if (!chunks.some((chunk) => chunk.count > 0)) {
      if (alongside.length > 0) await this.rocks.write([...alongside], sync);
      return;
    }
    await this.put(chunks, value, sync, alongside);
  }

  /** Makes events durable (as a JSON record), then readable: for callers without a parse worker. */
  async appendEvents(events: LogEvent[], sync: boolean): Promise<void> {
    if (events.length === 0) return;
    await this.put(
      chunkEvents(events, this.placement),
      Buffer.concat([Buffer.of(JSON_EVENTS_KIND), Buffer.from(JSON.stringify(events))]),
      sync,
    );
  }

  private async put(chunks: readonly EventChunk[], value: Buffer, sync: boolean, alongside: readonly WriteOp[] = []): Promise<void> {
    const seq = ++this.seq;
    await this.rocks.write([{ type: 'put', key: walKey(seq), value }, ...alongside], sync);
    for (const [index, range] of this.active.add(seq, chunks)) this.changes.record(index, range.min, range.max);
  }

  /** The placement new chunks must be keyed by. */
  get currentPlacement(): Placement {
    return this.placement;
  }

  /** Seals the active generation for flushing and starts a new one. */
  rotate(): Generation {
    const sealed = this.active;
    this.sealed.push(sealed);
    this.active = new Generation(++this.generationCounter);
    return sealed;
  }

  /** Drops a flushed generation from the readable set (call in the same tick as publishing its segments). */
  release(generation: Generation): void {
    const position = this.sealed.indexOf(generation);
    if (position !== -1) this.sealed.splice(position, 1);
  }

  /** Sealed generations waiting for (or in) a flush, oldest first. */
  sealedGenerations(): Generation[] {
    return [...this.sealed];
  }

  /** Every readable generation, oldest first. */
  generations(): Generation[] {
    return [...this.sealed, this.active];
  }

  get activeEvents(): number {
    return this.active.events;
  }

  get bufferedEvents(): number {
    let total = this.active.events;
    for (const generation of this.sealed) total += generation.events;
    return total;
  }

  /** Approximate memory held by buffered `_raw` text, in bytes. */
  get bufferedBytes(): number {
    let total = 0;
    for (const generation of this.generations()) {
      for (const table of generation.tables.values()) total += table.rawBytes;
    }
    return total;
  }
}

export function walDeleteOps(generation: Generation): { type: 'del'; key: Buffer }[] {
  return generation.seqs.map((seq) => ({ type: 'del' as const, key: walKey(seq) }));
}
