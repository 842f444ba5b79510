/**
 * The ShardQuery service: a coordinator asks this node which partition keys it holds in a
 * query's range (Keys), then runs the query's fragment over this node's storage for the keys it
 * was given (fragment-serving.ts), on a Query call of its own or as a frame of the long-lived
 * Fragments call (fragment-stream-service.ts). The caller's cancel or deadline aborts the work at
 * once (the query worker sessions are closed). Catalog answers the field and source catalog of
 * the keys it is given (GET /fields, /sources).
 */
import * as grpc from '@grpc/grpc-js';
import type { CatalogPart } from '../../coordinator/catalog-parts';
import { localCatalogPart } from '../../coordinator/local-catalog';
import { indexMatcher } from '../../storage/scan';
import { PartialSegmentError } from '../../storage/segment/segment-keys';
import type * as wire from './grpc/messages';
import { SHARD_QUERY_SERVICE } from './grpc/proto';
import { endWith, RpcRefusal, unary, writeWhenReady, type GrpcServer } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import { FragmentFloors } from './fragment-floors';
import {
  CATCHING_UP_REFUSAL,
  checkProtocol,
  groupSplitRefusal,
  serveFragment,
  type FragmentTransport,
  type ShardQueryServiceOptions,
} from './fragment-serving';
import { fragmentStreamHandler } from './fragment-stream-service';

type QueryCall = grpc.ServerWritableStream<wire.ShardQueryRequest, wire.ShardQueryMessage>;

/** Milliseconds until the call's deadline (Infinity when it has none). */
function untilDeadline(call: QueryCall): number {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return at - Date.now();
}

/** A Query call as the transport of its one fragment. */
function queryCallTransport(call: QueryCall): FragmentTransport {
  const gone = new AbortController();
  const onCancelled = (): void => {
    call.off('cancelled', onCancelled);
    gone.abort();
  };
  call.on('cancelled', onCancelled);
  // A caller that canceled before this handler ran has already had its event.
  if (call.cancelled) onCancelled();
  const done = (): void => {
    call.off('cancelled', onCancelled);
  };
  return {
    gone: gone.signal,
    write: (message) => writeWhenReady(call, message, gone.signal),
    end: () => {
      done();
      call.end();
    },
    refuse: (refusal) => {
      done();
      endWith(call, refusal);
    },
    fail: (details) => {
      done();
      call.emit('error', { code: grpc.status.INTERNAL, details });
    },
  };
}

export function addShardQueryService(server: GrpcServer, options: ShardQueryServiceOptions, onFailure: (error: Error) => void): void {
  const floors = options.floors ?? new FragmentFloors();
  const serving = { options, floors, onFailure };
  const keys = async (request: wire.ShardKeysRequest): Promise<wire.ShardKeysReply> => {
    checkProtocol(request.protocol_version);
    const held = options.engine.localKeys({
      index: indexMatcher(request.index_patterns),
      fromMicros: request.from_micros,
      toMicros: request.to_micros,
    });
    return { protocol_version: protocolVersion(), keys: [...held].sort() };
  };

  const query = (call: QueryCall): void => serveFragment(serving, call.request, untilDeadline(call), queryCallTransport(call));

  const raiseFloor = async (request: wire.RaiseFloorRequest): Promise<wire.RaiseFloorReply> => {
    checkProtocol(request.protocol_version);
    return { protocol_version: protocolVersion(), running: floors.raise(request.fragment_id, request.time) };
  };

  const catalog = async (request: wire.ShardCatalogRequest): Promise<wire.ShardCatalogReply> => {
    checkProtocol(request.protocol_version);
    const catchingUp = options.catchingUp?.() ?? null;
    if (catchingUp !== null)
      throw new RpcRefusal(grpc.status.UNAVAILABLE, CATCHING_UP_REFUSAL, `${catchingUp}; ask the keys' other owners`);
    let part: CatalogPart;
    try {
      part = localCatalogPart(options.engine, request.keys, {
        fromMicros: request.from_micros,
        toMicros: request.to_micros,
        prefix: request.prefix,
        source: request.source === '' ? null : request.source,
      });
    } catch (error) {
      throw error instanceof PartialSegmentError ? groupSplitRefusal(error) : error;
    }
    return { protocol_version: protocolVersion(), part: Buffer.from(JSON.stringify(part)) };
  };

  server.addService(SHARD_QUERY_SERVICE, {
    Keys: unary(keys, onFailure),
    Query: query,
    RaiseFloor: unary(raiseFloor, onFailure),
    Catalog: unary(catalog, onFailure),
    Fragments: fragmentStreamHandler(server, serving),
  });
}
