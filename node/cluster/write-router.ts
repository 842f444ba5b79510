/**
 * Writes in a cluster: the node that took an ingest request sends each owner of the request's
 * partition keys (ring.ts, `replication_factor` of them a key) its share of the chunks, all owners
 * at once: this node's share is appended here, every other owner's share goes in one
 * ShardWrite.Write call. The request is acknowledged once every live owner holds its share
 * durably. A share for an owner that is down, or that does not answer, is kept here as a durable
 * hint instead (hint-replay.ts sends it once the owner is back), and the request still succeeds.
 *
 * A share that is neither stored nor hinted fails the request (503): a live owner's backpressure
 * is BACKPRESSURE, anything else SHARD_UNAVAILABLE. The other owners may have stored their shares
 * by then, so a retried request can store those events again (at least once, as Elasticsearch).
 */
import { encodeChunkRecord, decodeChunkRecord } from '../../storage/buffer/chunk-record';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { StorageEngine } from '../../storage/engine';
import type { PartitionKey, Placement } from '../../storage/partition';
import { ApiError } from '../errors';
import type { ClusterMetrics } from '../metrics';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { SHARD_WRITE } from './grpc/proto';
import { protocolVersion } from './grpc/wire';
import type { HintStore } from './hints';
import { keysByOwner } from './key-owners';
import type { Membership } from './membership';
import { BACKPRESSURE_REFUSAL } from './shard-write';

/**
 * How long an owner has to store its share. Longer than a RocksDB write of the largest body takes
 * on a busy node; an owner that takes longer is treated as down and its share hinted.
 */
export const WRITE_TIMEOUT_MS = 10_000;

export interface WriteRouterOptions {
  /** This node's id. */
  self: string;
  membership: Pick<Membership, 'state' | 'livenessOf'>;
  peers: PeerClients;
  hints: HintStore;
  engine: StorageEngine;
  replicationFactor: number;
  /** ingest.max_buffered_events as it is now. */
  maxBufferedEvents: () => number;
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

/** Why a share was neither stored nor hinted. */
interface ShareFailure {
  owner: string;
  backpressure: boolean;
  message: string;
}

export class WriteRouter {
  constructor(private readonly options: WriteRouterOptions) {}

  /**
   * Stores a parsed request's chunks on their owners; resolves once every live owner holds its
   * share durably (or it is hinted). `record` is the chunk record of `chunks`, keyed with `placement`.
   */
  async write(chunks: readonly EventChunk[], record: Buffer, placement: Placement): Promise<void> {
    const { forming } = this.options.membership.state();
    // Until the seeds have joined, ring epoch 0 may still grow: nothing may be placed by it yet.
    if (forming.length > 0) {
      throw new ApiError('CLUSTER_FORMING', `the cluster is forming: the master waits for the seeds at ${forming.join(', ')} to join; retry shortly`);
    }
    const shares = this.shares(chunks);
    const recordOf = (share: Share): Buffer => (share.whole ? record : encodeChunkRecord(share.chunks, placement));
    // Every share is settled before the request is answered, even when one fails unexpectedly.
    const settled = await Promise.allSettled(shares.map((share) => this.store(share, recordOf)));
    const failures: ShareFailure[] = [];
    for (const outcome of settled) {
      if (outcome.status === 'rejected') throw outcome.reason;
      if (outcome.value !== null) failures.push(outcome.value);
    }
    if (failures.length > 0) throw requestError(failures, shares.length, this.options.self);
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
    const { epochs } = this.options.membership.state();
    const byOwner = keysByOwner([...chunksOfKey.keys()], epochs, this.options.replicationFactor);
    const owned = new Set<PartitionKey>();
    const shares: Share[] = [];
    for (const [owner, keys] of byOwner) {
      const ownerChunks = keys.flatMap((key) => chunksOfKey.get(key)!);
      for (const key of keys) owned.add(key);
      const events = ownerChunks.reduce((sum, chunk) => sum + chunk.count, 0);
      shares.push({ owner, chunks: ownerChunks, events, whole: keys.length === chunksOfKey.size });
    }
    const orphan = [...chunksOfKey.keys()].find((key) => !owned.has(key));
    if (orphan !== undefined) {
      throw new ApiError('SHARD_UNAVAILABLE', `no node of the cluster's ring owns index ${orphan.index} at ${new Date(orphan.bucket / 1000).toISOString()}; nothing was stored`);
    }
    return shares;
  }

  /** Stores one share where it belongs; null when stored or hinted. */
  private async store(share: Share, recordOf: (share: Share) => Buffer): Promise<ShareFailure | null> {
    const { self, metrics } = this.options;
    if (share.owner === self) return this.storeHere(share, recordOf);
    const address = this.options.membership.state().members.find((member) => member.id === share.owner)?.grpc;
    if (address === undefined || this.knownDown(share.owner)) return this.hint(share, recordOf(share), 'is down');
    try {
      await this.options.peers.call(address, SHARD_WRITE.Write, { protocol_version: protocolVersion(), origin: self, record: recordOf(share) }, WRITE_TIMEOUT_MS);
      metrics.share('sent', share.events);
      return null;
    } catch (error) {
      if (error instanceof PeerCallError && error.unreachable) return this.hint(share, recordOf(share), `did not answer (${error.details})`);
      metrics.share('refused', share.events);
      const backpressure = error instanceof PeerCallError && error.reason === BACKPRESSURE_REFUSAL;
      const reason = error instanceof PeerCallError ? error.details : (error as Error).message;
      return { owner: share.owner, backpressure, message: `node ${share.owner} refused its ${share.events} events: ${reason}` };
    }
  }

  /** Down as membership sees it: heard from since this node started, and silent for the failure timeout since. */
  private knownDown(owner: string): boolean {
    const liveness = this.options.membership.livenessOf(owner);
    return !liveness.up && liveness.lastHeartbeatMs !== null;
  }

  private async storeHere(share: Share, recordOf: (share: Share) => Buffer): Promise<ShareFailure | null> {
    const { engine, metrics } = this.options;
    const buffered = engine.buffer.bufferedEvents;
    const limit = this.options.maxBufferedEvents();
    if (buffered + share.events > limit) {
      metrics.share('refused', share.events);
      return { owner: share.owner, backpressure: true, message: `this node's write buffer holds ${buffered} events (limit ingest.max_buffered_events = ${limit})` };
    }
    const record = recordOf(share);
    // A share re-encoded from part of the request is kept as views into its own record, so the
    // memtable does not hold the other owners' chunks too.
    await engine.appendRecord(share.whole ? share.chunks : decodeChunkRecord(record).chunks, record);
    metrics.share('local', share.events);
    return null;
  }

  private async hint(share: Share, record: Buffer, why: string): Promise<ShareFailure | null> {
    const { hints, metrics } = this.options;
    try {
      await hints.add(share.owner, record);
    } catch (error) {
      metrics.share('failed', share.events);
      return { owner: share.owner, backpressure: false, message: `node ${share.owner} ${why}, and its ${share.events} events could not be kept as a hint here: ${(error as Error).message}` };
    }
    metrics.hintsStored.inc({ target: share.owner });
    metrics.share('hinted', share.events);
    return null;
  }
}

/** The request's error: BACKPRESSURE when an owner was full (the client should retry shortly), else SHARD_UNAVAILABLE. */
function requestError(failures: readonly ShareFailure[], shares: number, self: string): ApiError {
  const stored = shares - failures.length;
  const storedNote = stored > 0 ? `; ${stored} of ${shares} owners stored their share, which a retry may store again` : '';
  const what = failures.map((failure) => failure.message).join('; ');
  if (failures.some((failure) => failure.backpressure)) {
    return new ApiError('BACKPRESSURE', `node ${self} could not store this request on every owner: ${what}${storedNote}; retry shortly`);
  }
  return new ApiError('SHARD_UNAVAILABLE', `node ${self} could not store this request on every owner: ${what}${storedNote}`);
}
