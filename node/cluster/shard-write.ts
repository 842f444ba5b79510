/**
 * The owner's side of writes (service ShardWrite): a peer that took an ingest request sends this
 * node the chunks of the keys it owns as a chunk record, which is appended as it is (no parse) and
 * answered once durable; a peer that kept a hint while this node was down replays it, and the
 * record is committed with the hint's applied mark in one batch, so a hint is applied once. Each
 * part of a share carries an id committed with it (applied-shares.ts): a part that comes again,
 * as a late Write or as the hint of a Write whose answer was lost, is applied once.
 * Nothing a peer sends is trusted: the record must add up and the share pass share-checks.ts
 * before anything is stored.
 */
import { status } from '@grpc/grpc-js';
import { decodeChunkRecord } from '../../storage/buffer/chunk-record';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { StorageEngine } from '../../storage/engine';
import type { Placement } from '../../storage/core/partition';
import type { Logger } from '../core/logger';
import type { ClusterMetrics } from '../metrics/metrics';
import type * as wire from './grpc/messages';
import { SHARD_WRITE_SERVICE } from './grpc/proto';
import { RpcRefusal, unary, type GrpcServer } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import type { AppliedHints } from './hints';
import type { WriteOp } from '../../storage/core/rocks';
import type { AppliedShares } from './applied-shares';
import type { Membership } from './membership';
import { shareIdCreatedMs } from './share-ids';
import { protocolProblem } from './protocol';
import { checkChunks, checkHint, checkOrigin, INVALID_RECORD_REFUSAL, quote, refusalRecorder } from './share-checks';

/** Refusal reasons the writing node tells apart. */
export const BACKPRESSURE_REFUSAL = 'backpressure';

export interface ShardWriteOwner {
  /** This node's id. */
  self: string;
  /** The cluster state this node knows: members (a share's origin) and ring epochs (the keys it owns). */
  membership: Pick<Membership, 'state'>;
  replicationFactor: number;
  engine: StorageEngine;
  appliedHints: AppliedHints;
  appliedShares: AppliedShares;
  /** ingest.max_buffered_events as it is now (PATCH /config changes it live). */
  maxBufferedEvents: () => number;
  metrics: ClusterMetrics;
  logger: Logger;
  onFailure: (error: Error) => void;
}

interface Share {
  record: Buffer;
  chunks: EventChunk[];
  events: number;
}

const samePlacement = (a: Placement, b: Placement): boolean => a.bucketSpanMicros === b.bucketSpanMicros && a.partitions === b.partitions;
const describePlacement = (placement: Placement): string =>
  `cluster.partitions ${placement.partitions}, cluster.bucket_span ${placement.bucketSpanMicros / 1000} ms`;

/**
 * The record as this node will keep it: copied into shared memory of its own, since the chunks
 * are views into it that the flush's codec workers read without a copy (a view into the gRPC
 * message would carry the whole message along), then decoded and checked.
 */
function receiveShare(bytes: Buffer, placement: Placement, origin: string): Share {
  const record = Buffer.from(new SharedArrayBuffer(bytes.length));
  bytes.copy(record);
  let decoded: ReturnType<typeof decodeChunkRecord>;
  try {
    decoded = decodeChunkRecord(record);
  } catch (error) {
    throw new RpcRefusal(
      status.INVALID_ARGUMENT,
      INVALID_RECORD_REFUSAL,
      `the record from node ${quote(origin)} does not add up (${(error as Error).message}): nothing was stored`,
    );
  }
  if (!samePlacement(decoded.placement, placement)) {
    throw new RpcRefusal(
      status.FAILED_PRECONDITION,
      'placement-mismatch',
      `node ${origin} keyed its events with ${describePlacement(decoded.placement)}, this node with ${describePlacement(placement)}: every node of a cluster needs the same cluster.partitions and cluster.bucket_span`,
    );
  }
  let events = 0;
  for (const chunk of decoded.chunks) events += chunk.count;
  return { record, chunks: decoded.chunks, events };
}

/** A share id is empty (a peer before protocol 1.3) or one share-ids.ts made. */
function checkShareId(origin: string, shareId: string): void {
  if (shareId !== '' && shareIdCreatedMs(shareId) === null) {
    throw new RpcRefusal(
      status.INVALID_ARGUMENT,
      'invalid-share-id',
      `node ${origin} sent share id ${JSON.stringify(shareId.slice(0, 64))}, which is not <13-digit ms>-<16 hex>-<part>`,
    );
  }
}

function refuseUnknownProtocol(version: wire.ProtocolVersion | null, origin: string): void {
  const problem = protocolProblem(version, `node ${origin || '(no id)'}`);
  if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'protocol-version', problem);
}

/** Adds ShardWrite to the node's gRPC server. */
export function addShardWriteService(server: GrpcServer, owner: ShardWriteOwner): void {
  const { engine, appliedHints, appliedShares, metrics, self } = owner;
  const recordRefusal = refusalRecorder(owner.logger, (method, reason) => metrics.refusedWrites.inc({ method, reason }));

  /** The share of a record from `origin` as this node will keep it, once every check passed. */
  const checkedShare = (bytes: Buffer, origin: string): Share => {
    const placement = engine.buffer.currentPlacement;
    const share = receiveShare(bytes, placement, origin);
    checkChunks(share.chunks, origin, self, owner.membership.state(), owner.replicationFactor, placement.bucketSpanMicros);
    return share;
  };

  /** The backpressure refusal, when `events` more would take the write buffer over its limit. */
  const checkRoom = (events: number, origin: string): void => {
    const buffered = engine.buffer.bufferedEvents;
    const limit = owner.maxBufferedEvents();
    if (buffered + events <= limit) return;
    throw new RpcRefusal(
      status.RESOURCE_EXHAUSTED,
      BACKPRESSURE_REFUSAL,
      `its write buffer holds ${buffered} events and ${events} more from node ${origin} would pass ingest.max_buffered_events = ${limit}`,
      { buffered: String(buffered), limit: String(limit) },
    );
  };

  /**
   * Appends a share part with `marks` in one batch; once only for a part with an id. Resolves
   * whether it was appended now (false: it had been before).
   */
  const applyPart = async (origin: string, shareId: string, share: Share, marks: WriteOp[]): Promise<boolean> => {
    if (shareId === '') {
      await engine.appendRecord(share.chunks, share.record, marks);
      return true;
    }
    return appliedShares.applyOnce(origin, shareId, (mark) => engine.appendRecord(share.chunks, share.record, [...marks, mark]));
  };

  const write = async (request: wire.WriteRequest): Promise<wire.WriteReply> => {
    refuseUnknownProtocol(request.protocol_version, request.origin);
    checkOrigin(request.origin, self, owner.membership.state());
    checkShareId(request.origin, request.share_id);
    const share = checkedShare(request.record, request.origin);
    checkRoom(share.events, request.origin);
    appliedShares.floor(request.origin, request.share_floor_ms);
    if (await applyPart(request.origin, request.share_id, share, [])) metrics.receivedEvents.inc({ kind: 'write' }, share.events);
    return { protocol_version: protocolVersion(), events: share.events };
  };

  // One replay at a time per hint log: two copies of one hint (a retry after a lost answer) must
  // not both pass the applied check before either commits its mark.
  const replaysByLog = new Map<string, Promise<unknown>>();
  const replayHint = async (request: wire.ReplayHintRequest): Promise<wire.ReplayHintReply> => {
    refuseUnknownProtocol(request.protocol_version, request.origin);
    checkOrigin(request.origin, self, owner.membership.state());
    checkHint(request.hint_log, request.seq);
    checkShareId(request.origin, request.share_id);
    const log = `${request.origin}/${request.hint_log}`;
    const previous = replaysByLog.get(log) ?? Promise.resolve();
    const run = previous.then(() => applyHint(request, log));
    const tail = run.catch(() => undefined);
    replaysByLog.set(log, tail);
    void tail.then(() => {
      if (replaysByLog.get(log) === tail) replaysByLog.delete(log);
    });
    return run;
  };

  const applyHint = async (request: wire.ReplayHintRequest, log: string): Promise<wire.ReplayHintReply> => {
    if (appliedHints.applied(log, request.seq)) return { protocol_version: protocolVersion(), applied: false, events: 0 };
    const share = checkedShare(request.record, request.origin);
    checkRoom(share.events, request.origin);
    appliedShares.floor(request.origin, request.share_floor_ms);
    const applied = await applyPart(request.origin, request.share_id, share, [appliedHints.markOp(log, request.seq)]);
    if (!applied) return { protocol_version: protocolVersion(), applied: false, events: 0 };
    appliedHints.committed(log, request.seq);
    metrics.receivedEvents.inc({ kind: 'hint' }, share.events);
    return { protocol_version: protocolVersion(), applied: true, events: share.events };
  };

  /** The handler, with its refusals counted and logged. */
  const recorded =
    <Request extends { origin: string }, Reply>(method: string, handler: (request: Request) => Promise<Reply>) =>
    (request: Request): Promise<Reply> =>
      handler(request).catch((error: unknown) => {
        if (error instanceof RpcRefusal) recordRefusal(method, request.origin, error);
        throw error;
      });

  server.addService(SHARD_WRITE_SERVICE, {
    Write: unary(recorded('Write', write), owner.onFailure),
    ReplayHint: unary(recorded('ReplayHint', replayHint), owner.onFailure),
  });
}
