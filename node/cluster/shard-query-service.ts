/**
 * The ShardQuery service: a coordinator asks this node which partition keys it holds in a
 * query's range (Keys), then runs the query's fragment over this node's storage for the keys it
 * was given (Query), streaming progress, export rows and finally the node's ShardResult. The
 * caller's cancel or deadline aborts the work at once (the query worker sessions are closed).
 * Catalog answers the field and source catalog of the keys it is given (GET /fields, /sources).
 */
import * as grpc from '@grpc/grpc-js';
import { localCatalogPart } from '../../coordinator/local-catalog';
import { runFragment, type LocalShardOptions } from '../../coordinator/local-target';
import type { QuerySlots } from '../../coordinator/query-slots';
import { countersOf, reportProgress } from '../../coordinator/shard-progress';
import type { ScanSource } from '../../query/exec/execute';
import { QueryLimitError } from '../../query/exec/limits';
import { QueryProgress } from '../../query/exec/progress';
import type { TimedRow } from '../../query/exec/rows';
import type { QueryWorkerPool } from '../../query/exec/session-pool';
import { encodeRows, encodeShardResult } from '../../query/exec/shard-results';
import { QueryError } from '../../query/syntax';
import type { StorageEngine } from '../../storage/engine';
import { indexMatcher } from '../../storage/scan';
import type * as wire from './grpc/messages';
import { SHARD_QUERY_SERVICE } from './grpc/proto';
import { endWith, RpcRefusal, unary, type GrpcServer } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import { FINAL_PROGRESS_MINOR, protocolProblem } from './protocol';
import type { ShardQueryMetrics } from './shard-query-metrics';
import { FragmentFloors } from './fragment-floors';
import { countersToWire, fragmentFromWire } from './shard-query-wire';

/** The most bytes of rows one Query message carries: a large batch is split, so messages stay well under gRPC's limits. */
export const ROWS_MESSAGE_BYTES = 1 << 20;

/** The refusal of a fragment that hit a query limit here; its fact `code` is the limit's code. */
export const QUERY_LIMIT_REFUSAL = 'query-limit';
/** The refusal of a fragment while this node catches up (catch-up.ts): the caller asks the keys' other owners. */
export const CATCHING_UP_REFUSAL = 'catching-up';

/** The refusal of a fragment that found every query slot of this node taken (`query.max_concurrent`). */
export const QUERY_SLOTS_REFUSAL = 'query-slots';

export interface ShardQueryServiceOptions {
  engine: StorageEngine;
  source: ScanSource;
  workers: QueryWorkerPool;
  fragment: LocalShardOptions;
  /** The node's query slots, shared with the queries it coordinates: a fragment runs in one or is refused. */
  slots: QuerySlots;
  /** This node's `query.max_query_runtime`: a fragment never runs longer, whatever the caller's deadline. */
  maxQueryRuntimeMs: () => number;
  metrics: ShardQueryMetrics;
  /** The head floors of running fragments (RaiseFloor); one of the service's own when absent. */
  floors?: FragmentFloors;
  /**
   * Why this node answers for none of its keys now (CatchUp.catchingUp), null when it does: a
   * coordinator that has not heard so yet is refused rather than answered short. Always answers when absent.
   */
  catchingUp?: () => string | null;
}

type QueryCall = grpc.ServerWritableStream<wire.ShardQueryRequest, wire.ShardQueryMessage>;

function checkProtocol(version: wire.ProtocolVersion | null): void {
  const problem = protocolProblem(version, 'the caller');
  if (problem !== null) throw new RpcRefusal(grpc.status.FAILED_PRECONDITION, 'protocol-version', problem);
}

/** Milliseconds until the call's deadline (Infinity when it has none). */
function untilDeadline(call: QueryCall): number {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return at - Date.now();
}

export function addShardQueryService(server: GrpcServer, options: ShardQueryServiceOptions, onFailure: (error: Error) => void): void {
  const floors = options.floors ?? new FragmentFloors();
  const keys = async (request: wire.ShardKeysRequest): Promise<wire.ShardKeysReply> => {
    checkProtocol(request.protocol_version);
    const held = options.engine.localKeys({
      index: indexMatcher(request.index_patterns),
      fromMicros: request.from_micros,
      toMicros: request.to_micros,
    });
    return { protocol_version: protocolVersion(), keys: [...held].sort() };
  };

  const query = (call: QueryCall): void => {
    let fragment;
    try {
      checkProtocol(call.request.protocol_version);
      fragment = fragmentFromWire(call.request);
      const catchingUp = options.catchingUp?.() ?? null;
      if (catchingUp !== null)
        throw new RpcRefusal(grpc.status.UNAVAILABLE, CATCHING_UP_REFUSAL, `${catchingUp}; ask the keys' other owners`);
    } catch (error) {
      const refusal =
        error instanceof RpcRefusal ? error : new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-fragment', (error as Error).message);
      endWith(call, refusal);
      return;
    }
    const releaseSlot = options.slots.tryTake();
    if (releaseSlot === null) {
      const { running, limit } = options.slots;
      const message = `all ${limit} query slots of this node are taken (query.max_concurrent); retry shortly`;
      endWith(
        call,
        new RpcRefusal(grpc.status.RESOURCE_EXHAUSTED, QUERY_SLOTS_REFUSAL, message, { running: String(running), limit: String(limit) }),
      );
      return;
    }
    const controller = new AbortController();
    const signal = controller.signal;
    const onCancelled = (): void => controller.abort(new QueryLimitError('QUERY_CANCELED', 'the coordinator canceled the query'));
    call.on('cancelled', onCancelled);
    // A caller that canceled before this handler ran has already had its event.
    if (call.cancelled) onCancelled();
    const runtimeMs = Math.min(untilDeadline(call), options.maxQueryRuntimeMs());
    const timer = setTimeout(
      () => controller.abort(new QueryLimitError('QUERY_TIMEOUT', `the query fragment ran longer than ${runtimeMs} ms`)),
      Math.max(0, runtimeMs),
    );
    timer.unref();

    /** Writes a message; resolves once the stream takes more (or the call is gone). */
    const send = (message: Omit<wire.ShardQueryMessage, 'protocol_version'>): Promise<void> =>
      new Promise((resolve) => {
        if (signal.aborted || call.write({ protocol_version: protocolVersion(), ...message })) return resolve();
        const done = (): void => {
          call.off('drain', done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        call.once('drain', done);
        signal.addEventListener('abort', done, { once: true });
      });
    const progress = new QueryProgress();
    // A caller of 1.7 or later reads the last counters beside the result: one message less each way.
    const folded = (call.request.protocol_version?.minor ?? 0) >= FINAL_PROGRESS_MINOR;
    const stopProgress = reportProgress(
      progress,
      (counters) => {
        if (!signal.aborted) void send({ progress: countersToWire(counters) });
      },
      !folded,
    );
    /** Rows go out in messages of at most ROWS_MESSAGE_BYTES, each bounded by its oldest row as well (the rest of the batch is older). */
    const sendRows = async (rows: readonly TimedRow[], bound: number): Promise<void> => {
      const bytes = encodeRows(rows);
      if (bytes.length <= ROWS_MESSAGE_BYTES || rows.length === 1) return send({ rows: { rows: bytes, bound } });
      const half = Math.ceil(rows.length / 2);
      await sendRows(rows.slice(0, half), Math.max(bound, rows[half - 1]!.time));
      await sendRows(rows.slice(half), bound);
    };
    const onRows = fragment.spec.stream ? sendRows : null;
    const spec = fragment;
    // A head's floor: raised by the caller (RaiseFloor), and this node's own rises go to the
    // caller. A caller that named no run shares no floor (a newest share, or a caller before 1.2).
    const { entry, release } = floors.open(fragment.fragmentId, fragment.headFloor);
    const stopFloor =
      fragment.fragmentId === ''
        ? (): void => undefined
        : entry.onOwnRaise((time) => {
            if (!signal.aborted) void send({ head_floor: { time } });
          });
    const stopAll = (): void => {
      stopFloor();
      release();
      stopProgress();
    };
    options.metrics
      .serve(signal, () =>
        runFragment(options.source, options.workers, spec, signal, onRows, { ...options.fragment, progress, headFloor: entry.floor }),
      )
      .then(
        async (result) => {
          stopAll();
          const finalProgress = folded ? { final_progress: countersToWire(countersOf(progress)) } : {};
          await send({ result: encodeShardResult(result), ...finalProgress });
          call.end();
        },
        (error: unknown) => {
          stopAll();
          if (call.cancelled) return;
          if (error instanceof QueryLimitError) {
            endWith(call, new RpcRefusal(grpc.status.FAILED_PRECONDITION, QUERY_LIMIT_REFUSAL, error.message, { code: error.code }));
          } else if (error instanceof QueryError) {
            endWith(call, new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-fragment', error.message));
          } else {
            onFailure(error instanceof Error ? error : new Error(String(error)));
            call.emit('error', { code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) });
          }
        },
      )
      .finally(() => {
        releaseSlot();
        clearTimeout(timer);
        call.off('cancelled', onCancelled);
      });
  };

  const raiseFloor = async (request: wire.RaiseFloorRequest): Promise<wire.RaiseFloorReply> => {
    checkProtocol(request.protocol_version);
    return { protocol_version: protocolVersion(), running: floors.raise(request.fragment_id, request.time) };
  };

  const catalog = async (request: wire.ShardCatalogRequest): Promise<wire.ShardCatalogReply> => {
    checkProtocol(request.protocol_version);
    const catchingUp = options.catchingUp?.() ?? null;
    if (catchingUp !== null)
      throw new RpcRefusal(grpc.status.UNAVAILABLE, CATCHING_UP_REFUSAL, `${catchingUp}; ask the keys' other owners`);
    const part = localCatalogPart(options.engine, request.keys, {
      fromMicros: request.from_micros,
      toMicros: request.to_micros,
      prefix: request.prefix,
      source: request.source === '' ? null : request.source,
    });
    return { protocol_version: protocolVersion(), part: Buffer.from(JSON.stringify(part)) };
  };

  server.addService(SHARD_QUERY_SERVICE, {
    Keys: unary(keys, onFailure),
    Query: query,
    RaiseFloor: unary(raiseFloor, onFailure),
    Catalog: unary(catalog, onFailure),
  });
}
