/**
 * Stored column blocks a query worker holds, so that the main thread need not read them again.
 *
 * A query worker keeps the decompressed payloads of the blocks it reads (payload-cache.ts), but
 * the main thread would still read every stored block from RocksDB and send it over, query after
 * query, and a warm scan would mostly wait on those reads. So the worker also keeps the stored blocks it receives (HeldBlocks, within a byte
 * budget), the main thread keeps a mirror of their names (HeldMirror), and it reads and sends only
 * the blocks that worker lacks. `_raw` is not held: its blocks are the largest, and a search reads
 * them through its filters once.
 *
 * The mirror lags: the worker may evict a block after the main thread decided not to send it. So
 * an evicted block stays pinned in the worker until no message decided before its eviction was
 * known can still arrive:
 *
 * - every worker response reports the names held and dropped since the previous response
 *   (HeldDelta); the main thread applies them in order and counts the responses (`applied`);
 * - a decision to leave blocks out records `applied` as its basis, and is outstanding until its
 *   message is posted;
 * - every message to the worker carries `release`: the lowest outstanding basis, or `applied`;
 * - the worker drops the blocks evicted in responses numbered up to the `release` it receives.
 *
 * Why that is safe: a message decided at basis b leaves out blocks the mirror held after b
 * responses, so their evictions come in responses numbered above b. Every message the worker gets
 * before it carries a release of at most b: it was posted while the decision was outstanding, or
 * before the decision was made, when `applied` (which only grows) was at most b.
 */
import { ByteLru } from '../../storage/core/byte-lru';
import { cachesColumn, storedBlockName } from '../../storage/segment/payload-cache';
import type { BlockInput } from '../../storage/read/block-input';

/** Names and drops since the previous worker response. */
export interface HeldDelta {
  held: string[];
  dropped: string[];
}

/** The worker's side: the stored blocks it received, least recently used out first. */
export class HeldBlocks {
  private readonly lru: ByteLru<Uint8Array> | null;
  private readonly heldNow = new Set<string>();
  private evictedNow = new Map<string, Uint8Array>();
  /** Blocks evicted and reported in response `seq`, kept until a message releases that response. */
  private readonly pinned: { seq: number; blocks: Map<string, Uint8Array> }[] = [];
  private responses = 0;

  constructor(maxBytes: number) {
    this.lru = maxBytes > 0 ? new ByteLru<Uint8Array>(maxBytes, (name, block) => this.evicted(name, block)) : null;
  }

  /** Bytes held, pinned ones included. */
  get bytes(): number {
    let bytes = this.lru?.bytes ?? 0;
    for (const block of this.evictedNow.values()) bytes += block.length;
    for (const pin of this.pinned) for (const block of pin.blocks.values()) bytes += block.length;
    return bytes;
  }

  /** Keeps a block the main thread sent. */
  keep(name: string, block: Uint8Array): void {
    if (this.lru === null || this.lru.has(name)) return;
    // A view would keep its whole backing buffer alive, uncounted.
    const owned = block.byteOffset === 0 && block.byteLength === block.buffer.byteLength ? block : block.slice();
    this.lru.set(name, owned);
    if (!this.lru.has(name)) return; // larger than the whole budget
    this.evictedNow.delete(name);
    this.heldNow.add(name);
  }

  /** A block the mirror may count on: held, or evicted and not yet released. */
  get(name: string): Uint8Array | undefined {
    const block = this.lru?.get(name) ?? this.evictedNow.get(name);
    if (block !== undefined) return block;
    for (const pin of this.pinned) {
      const pinned = pin.blocks.get(name);
      if (pinned !== undefined) return pinned;
    }
    return undefined;
  }

  /** What the next response reports; call exactly once per response, since responses are counted. */
  delta(): HeldDelta | undefined {
    this.responses++;
    if (this.heldNow.size === 0 && this.evictedNow.size === 0) return undefined;
    const delta = { held: [...this.heldNow], dropped: [...this.evictedNow.keys()] };
    this.heldNow.clear();
    if (this.evictedNow.size > 0) {
      this.pinned.push({ seq: this.responses, blocks: this.evictedNow });
      this.evictedNow = new Map();
    }
    return delta;
  }

  /** Drops the blocks evicted in responses numbered up to `through` (a message's `release`). */
  release(through: number): void {
    while (this.pinned.length > 0 && this.pinned[0].seq <= through) this.pinned.shift();
  }

  /** Always reported and pinned: even a block kept since the last response may have been held, dropped and kept again. */
  private evicted(name: string, block: Uint8Array): void {
    this.heldNow.delete(name);
    this.evictedNow.set(name, block);
  }
}

/** Puts the held blocks a message left out into its inputs; throws if one is gone (a protocol bug). */
export function fillHeld(blocks: HeldBlocks, input: BlockInput): void {
  if (input.held === undefined) return;
  for (const position of input.held) {
    const name = storedBlockName(input.segment, input.block, input.stored[position]);
    const block = blocks.get(name);
    if (block === undefined) throw new Error(`query worker: held block ${name} is missing`);
    input.buffers[position] = block;
  }
}

/** Keeps the blocks a message brought. */
export function keepReceived(blocks: HeldBlocks, input: BlockInput): void {
  input.stored.forEach((column, position) => {
    const buffer = input.buffers[position];
    if (buffer !== null && cachesColumn(column) && !(input.held?.includes(position) ?? false))
      blocks.keep(storedBlockName(input.segment, input.block, column), buffer);
  });
}

/** The main thread's side: what one worker holds, as of the responses applied so far. */
export class HeldMirror {
  private readonly names = new Set<string>();
  private applied = 0;
  /** Outstanding decisions: token -> basis. */
  private readonly outstanding = new Map<number, number>();
  private nextToken = 1;

  /** Applies one response's report (every response counts, with a report or without). */
  apply(delta: HeldDelta | undefined): void {
    this.applied++;
    if (delta === undefined) return;
    for (const name of delta.dropped) this.names.delete(name);
    for (const name of delta.held) this.names.add(name);
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /** Starts a decision to leave held blocks out of a message; settle it once the message is posted (or dropped). */
  decide(): number {
    const token = this.nextToken++;
    this.outstanding.set(token, this.applied);
    return token;
  }

  settle(token: number): void {
    this.outstanding.delete(token);
  }

  /** The `release` of a message posted now. */
  releasePoint(): number {
    let release = this.applied;
    for (const basis of this.outstanding.values()) if (basis < release) release = basis;
    return release;
  }
}

/** Which columns of each row block to read, and which the worker holds. */
export interface HeldPlan {
  /** The mirror's decision to leave blocks out (settle it once sent), or null when nothing is held. */
  decision: { mirror: HeldMirror; token: number } | null;
  /** Per block: the positions in `stored` the worker holds. */
  held: number[][];
  /** Per block: the stored columns to read. */
  toRead: string[][];
}

/** Plans the reads of row blocks bound for the worker `mirror` describes (null: read everything). */
export function planHeldReads(
  mirror: HeldMirror | null,
  blocks: readonly { segment: string; block: number; stored: readonly string[] }[],
): HeldPlan {
  const held = blocks.map((block) =>
    mirror === null
      ? []
      : block.stored.flatMap((column, position) =>
          cachesColumn(column) && mirror.has(storedBlockName(block.segment, block.block, column)) ? [position] : [],
        ),
  );
  const toRead = blocks.map((block, i) =>
    held[i].length === 0 ? [...block.stored] : block.stored.filter((_, position) => !held[i].includes(position)),
  );
  const any = mirror !== null && held.some((positions) => positions.length > 0);
  return { decision: any ? { mirror, token: mirror.decide() } : null, held, toRead };
}

/** The buffers of each block in `stored` order: those read, and null where the worker holds the block. */
export function expandHeldReads(plan: HeldPlan, read: (Buffer | null)[][]): (Buffer | null)[][] {
  return read.map((buffers, i) => {
    const held = plan.held[i];
    if (held.length === 0) return buffers;
    const out: (Buffer | null)[] = [];
    let next = 0;
    for (let position = 0; position < held.length + buffers.length; position++) out.push(held.includes(position) ? null : buffers[next++]);
    return out;
  });
}
