/**
 * Writes in a cluster: the node that took an ingest request sends each owner of the request's
 * partition keys (ring.ts, `replication_factor` of them a key) its share of the chunks, all owners
 * at once: this node's share is appended here, every other owner's share goes in ShardWrite.Write
 * calls of bounded size (share-parts.ts), each part with an id the owner commits with it.
 *
 * A request is stored whole or not at all:
 * - it is refused (503) only while nothing of it is stored: before any share goes out (this
 *   node's write buffer is full, an owner is known to be refusing, too far behind, or at odds
 *   with this node's placement or protocol), or when
 *   every owner that answered refused and none may hold its part;
 * - once any part is stored, or may be (an owner that did not answer within
 *   cluster.write_timeout), every part not acknowledged is kept here as a durable hint with its id
 *   and the request succeeds; hint-replay.ts sends it once the owner takes writes again, and the
 *   owner applies a part it already holds once only (applied-shares.ts).
 * So an acknowledged event is stored exactly once on each owner, and a refused request stored nothing.
 */
import type { EventChunk } from '../../storage/buffer/event-chunk';
import { encodeChunkRecord, encodeChunkRecordViews } from '../../storage/buffer/chunk-record';
import type { StorageEngine } from '../../storage/engine';
import type { PartitionKey, Placement } from '../../storage/core/partition';
import { ApiError } from '../core/errors';
import type { ClusterMetrics } from '../metrics/metrics';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { SHARD_WRITE } from './grpc/proto';
import { protocolVersion } from './grpc/wire';
import type { HintStore } from './hints';
import { isForgottenIn } from './cluster-state';
import { epochAt } from './epochs';
import { keysByOwner } from './key-owners';
import type { Membership } from './membership';
import { BACKPRESSURE_REFUSAL } from './shard-write';
import { newRequestShareIds, shareIdOf, type RequestShareIds } from './share-ids';
import type { ShareFloors } from './share-floors';
import { shareParts } from './share-parts';

/**
 * Hint bytes a live owner may have waiting here before requests with a share for it are refused
 * whole: an owner that keeps refusing (its write buffer full) must slow the writers, not fill this
 * node's disk. An owner that is down has no such bound: its hints are what it missed.
 */
export const HINT_BACKLOG_BYTES = 256 * 1024 * 1024;
/** How long requests with a share for an owner are refused after it answered backpressure. */
const BACKPRESSURE_HOLD_MS = 1_000;
/**
 * Refusals a retry cannot change (the nodes disagree on placement or protocol): the part is kept
 * as a hint all the same when another part of its request was stored, but later requests with a
 * share for that owner are refused before anything is stored, until it is asked again after this.
 */
const INCOMPATIBLE_REASONS: ReadonlySet<string> = new Set(['placement-mismatch', 'protocol-version']);
const INCOMPATIBLE_HOLD_MS = 30_000;

export interface WriteRouterOptions {
  /** This node's id. */
  self: string;
  membership: Pick<Membership, 'state' | 'livenessOf'>;
  peers: PeerClients;
  hints: HintStore;
  floors: ShareFloors;
  engine: StorageEngine;
  replicationFactor: number;
  /** ingest.max_buffered_events as it is now. */
  maxBufferedEvents: () => number;
  /** cluster.write_timeout as it is now. */
  writeTimeoutMs: () => number;
  metrics: ClusterMetrics;
}

/** One owner's part of a request. */
interface Share {
  owner: string;
  chunks: EventChunk[];
  events: number;
  /** Every chunk of the request: the request's own record is the share's. */
  whole: boolean;
}

/** A part of a share for another owner, on its way. */
interface Part {
  owner: string;
  shareId: string;
  record: Buffer;
  events: number;
}

type PartOutcome =
  | { kind: 'stored' }
  /** Never left this node: the owner is known to be down. */
  | { kind: 'unsent'; why: string }
  /** Sent without an answer in time: the owner may hold it. */
  | { kind: 'unanswered'; why: string }
  | { kind: 'refused'; backpressure: boolean; message: string };

export class WriteRouter {
  /** Owners that answered backpressure, and until when requests with a share for them are refused. */
  private readonly backpressureUntil = new Map<string, number>();
  /** Owners whose last refusal no retry can change: why, and until when requests for them are refused. */
  private readonly incompatible = new Map<string, { untilMs: number; why: string }>();

  constructor(private readonly options: WriteRouterOptions) {}

  /**
   * Stores a parsed request's chunks on their owners; resolves once every owner holds its share
   * durably or it is hinted here. `record` is the chunk record of `chunks`, keyed with `placement`.
   */
  async write(chunks: readonly EventChunk[], record: Buffer, placement: Placement): Promise<void> {
    const { forming } = this.options.membership.state();
    // Until the seeds have joined, ring epoch 0 may still grow: nothing may be placed by it yet.
    if (forming.length > 0) {
      throw new ApiError(
        'CLUSTER_FORMING',
        `the cluster is forming: the master waits for the seeds at ${forming.join(', ')} to join; retry shortly`,
      );
    }
    const shares = this.shares(chunks);
    this.admit(shares);
    const ids = newRequestShareIds();
    const local = shares.find((share) => share.owner === this.options.self);
    const parts = shares.filter((share) => share !== local).flatMap((share) => this.partsOf(share, placement, ids));
    const { floors } = this.options;
    for (const part of parts) floors.begin(part.owner, ids.createdMs);
    try {
      const [storedHere, outcomes] = await Promise.all([
        local === undefined ? Promise.resolve(false) : this.storeHere(local, record, placement),
        Promise.all(parts.map((part) => this.send(part))),
      ]);
      await this.settle(parts, outcomes, storedHere);
    } finally {
      for (const part of parts) floors.end(part.owner, ids.createdMs);
    }
  }

  /** Each owner's chunks; a chunk with no owner at all fails the request (an empty ring). */
  private shares(chunks: readonly EventChunk[]): Share[] {
    // Chunks by their key object (a key may hold several chunks of one request).
    const chunksOfKey = new Map<PartitionKey, EventChunk[]>();
    for (const chunk of chunks) {
      if (chunk.count === 0) continue;
      const list = chunksOfKey.get(chunk.key);
      if (list === undefined) chunksOfKey.set(chunk.key, [chunk]);
      else list.push(chunk);
    }
    const state = this.options.membership.state();
    const byOwner = keysByOwner([...chunksOfKey.keys()], state.epochs, this.options.replicationFactor);
    const owned = new Set<PartitionKey>();
    const shares: Share[] = [];
    for (const [owner, all] of byOwner) {
      // A forgotten node takes nothing: its copies of the keys of its epochs were given up.
      const keys =
        state.forgotten.length === 0 ? all : all.filter((key) => !isForgottenIn(state, owner, epochAt(state.epochs, key.bucket).epoch));
      if (keys.length === 0) continue;
      const ownerChunks = keys.flatMap((key) => chunksOfKey.get(key)!);
      for (const key of keys) owned.add(key);
      const events = ownerChunks.reduce((sum, chunk) => sum + chunk.count, 0);
      shares.push({ owner, chunks: ownerChunks, events, whole: keys.length === chunksOfKey.size });
    }
    const orphan = [...chunksOfKey.keys()].find((key) => !owned.has(key));
    if (orphan !== undefined) {
      throw new ApiError(
        'SHARD_UNAVAILABLE',
        `no node of the cluster's ring can take index ${orphan.index} at ${new Date(orphan.bucket / 1000).toISOString()} (its owners there were forgotten, or the ring is empty); nothing was stored`,
      );
    }
    return shares;
  }

  /** Refuses the request while nothing of it is stored, when some owner cannot take its share now. */
  private admit(shares: readonly Share[]): void {
    const { self, engine, hints, metrics } = this.options;
    const now = Date.now();
    for (const share of shares) {
      if (share.owner === self) {
        const buffered = engine.buffer.bufferedEvents;
        const limit = this.options.maxBufferedEvents();
        if (buffered + share.events > limit) {
          metrics.share('refused', share.events);
          throw new ApiError(
            'BACKPRESSURE',
            `node ${self} could not store this request: its write buffer holds ${buffered} events (limit ingest.max_buffered_events = ${limit}); nothing was stored; retry shortly`,
          );
        }
      } else if (!this.knownDown(share.owner)) {
        const backlog = hints.pendingBytes(share.owner);
        if (backlog >= HINT_BACKLOG_BYTES) {
          throw new ApiError(
            'BACKPRESSURE',
            `node ${share.owner} is behind: ${Math.round(backlog / 2 ** 20)} MiB of writes for it wait on node ${self}; nothing was stored; retry shortly`,
          );
        }
        const incompatible = this.incompatible.get(share.owner);
        if (incompatible !== undefined && incompatible.untilMs > now) {
          throw new ApiError(
            'SHARD_UNAVAILABLE',
            `node ${share.owner} refuses writes from node ${self}: ${incompatible.why}; nothing was stored`,
          );
        }
        if ((this.backpressureUntil.get(share.owner) ?? 0) > now) {
          throw new ApiError(
            'BACKPRESSURE',
            `node ${share.owner} refused writes for its full write buffer just now; nothing was stored; retry shortly`,
          );
        }
      }
    }
  }

  private partsOf(share: Share, placement: Placement, ids: RequestShareIds): Part[] {
    return shareParts(share.chunks).map((part, index) => ({
      owner: share.owner,
      shareId: shareIdOf(ids, index),
      record: encodeChunkRecord(part.chunks, placement),
      events: part.events,
    }));
  }

  /** This node's own share (`record`: the request's); true once durable. */
  private async storeHere(share: Share, record: Buffer, placement: Placement): Promise<true> {
    // A share of part of the request is re-encoded and kept as views into its own record, so the
    // memtable does not hold the other owners' chunks too.
    const own = share.whole ? { record, chunks: share.chunks } : encodeChunkRecordViews(share.chunks, placement);
    await this.options.engine.appendRecord(own.chunks, own.record);
    this.options.metrics.share('local', share.events);
    return true;
  }

  /** Sends a part to its owner, within cluster.write_timeout. */
  private async send(part: Part): Promise<PartOutcome> {
    const { self, metrics, floors } = this.options;
    const address = this.options.membership.state().members.find((member) => member.id === part.owner)?.grpc;
    if (address === undefined) return { kind: 'unsent', why: 'is not a member' };
    if (this.knownDown(part.owner)) return { kind: 'unsent', why: 'is down' };
    try {
      await this.options.peers.call(
        address,
        SHARD_WRITE.Write,
        {
          protocol_version: protocolVersion(),
          origin: self,
          record: part.record,
          share_id: part.shareId,
          share_floor_ms: floors.floorFor(part.owner),
        },
        this.options.writeTimeoutMs(),
      );
      metrics.share('sent', part.events);
      return { kind: 'stored' };
    } catch (error) {
      if (error instanceof PeerCallError && error.unreachable)
        return { kind: 'unanswered', why: `did not answer in time (${error.details})` };
      metrics.share('refused', part.events);
      const backpressure = error instanceof PeerCallError && error.reason === BACKPRESSURE_REFUSAL;
      if (backpressure) this.backpressureUntil.set(part.owner, Date.now() + BACKPRESSURE_HOLD_MS);
      const reason = error instanceof PeerCallError ? error.details : (error as Error).message;
      if (error instanceof PeerCallError && INCOMPATIBLE_REASONS.has(error.reason ?? '')) {
        this.incompatible.set(part.owner, { untilMs: Date.now() + INCOMPATIBLE_HOLD_MS, why: reason });
      }
      return { kind: 'refused', backpressure, message: `node ${part.owner} refused its ${part.events} events: ${reason}` };
    }
  }

  /**
   * After every part went: refuses the request when nothing of it is or may be stored and an owner
   * refused; otherwise keeps every part not acknowledged as a hint.
   */
  private async settle(parts: readonly Part[], outcomes: readonly PartOutcome[], storedHere: boolean): Promise<void> {
    const refusals = outcomes.flatMap((outcome) => (outcome.kind === 'refused' ? [outcome] : []));
    const anyStored = storedHere || outcomes.some((outcome) => outcome.kind === 'stored' || outcome.kind === 'unanswered');
    if (!anyStored && refusals.length > 0) throw requestError(refusals, this.options.self);
    const kept = await Promise.all(parts.map((part, i) => (outcomes[i]!.kind === 'stored' ? null : this.hint(part))));
    const lost = kept.filter((message): message is string => message !== null);
    if (lost.length > 0) {
      throw new ApiError(
        'SHARD_UNAVAILABLE',
        `node ${this.options.self} stored part of this request but could not keep the rest as hints: ${lost.join('; ')}`,
      );
    }
  }

  /** Down as membership sees it: heard from since this node started, and silent for the failure timeout since. */
  private knownDown(owner: string): boolean {
    const liveness = this.options.membership.livenessOf(owner);
    return !liveness.up && liveness.lastHeartbeatMs !== null;
  }

  /** Keeps a part as a hint; null once durable, else why not. */
  private async hint(part: Part): Promise<string | null> {
    const { hints, metrics } = this.options;
    try {
      await hints.add(part.owner, part.record, part.shareId);
    } catch (error) {
      metrics.share('failed', part.events);
      return `${part.events} events for node ${part.owner}: ${(error as Error).message}`;
    }
    metrics.hintsStored.inc({ target: part.owner });
    metrics.share('hinted', part.events);
    return null;
  }
}

/** The request's error when nothing was stored: BACKPRESSURE when an owner was full (retry shortly), else SHARD_UNAVAILABLE. */
function requestError(refusals: readonly { backpressure: boolean; message: string }[], self: string): ApiError {
  const what = [...new Set(refusals.map((refusal) => refusal.message))].join('; ');
  if (refusals.some((refusal) => refusal.backpressure)) {
    return new ApiError('BACKPRESSURE', `node ${self} could not store this request: ${what}; nothing was stored; retry shortly`);
  }
  return new ApiError('SHARD_UNAVAILABLE', `node ${self} could not store this request: ${what}; nothing was stored`);
}
