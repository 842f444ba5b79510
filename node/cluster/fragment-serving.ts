/**
 * One query fragment served for another node's coordinator, whichever call carries it: a Query
 * call of its own, or a frame of the long-lived Fragments call (fragment-stream-service.ts). The
 * request is checked like a client's, the fragment takes one of this node's query slots, runs over
 * this node's storage for its keys and sends progress, export rows, head floor rises and last its
 * result through the call's transport; a refusal or failure ends it instead.
 */
import * as grpc from '@grpc/grpc-js';
import { runFragment, type LocalShardOptions } from '../../coordinator/local-target';
import type { QuerySlots } from '../../coordinator/query-slots';
import { IndexesUnlistedError } from '../../coordinator/scatter-gather';
import { countersOf, reportProgress } from '../../coordinator/shard-progress';
import type { ScanSource } from '../../query/exec/execute';
import { QueryLimitError } from '../../query/exec/limits';
import { QueryProgress } from '../../query/exec/progress';
import type { TimedRow } from '../../query/exec/rows';
import type { QueryWorkerPool } from '../../query/exec/session-pool';
import { encodeRows, encodeShardResult } from '../../query/exec/shard-results';
import { QueryError } from '../../query/syntax';
import type { StorageEngine } from '../../storage/engine';
import { PartialSegmentError } from '../../storage/segment/segment-keys';
import type * as wire from './grpc/messages';
import { internalDetails, RpcRefusal } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import { FINAL_PROGRESS_MINOR, protocolProblem } from './protocol';
import type { FragmentFloors } from './fragment-floors';
import type { ShardQueryMetrics } from './shard-query-metrics';
import { countersToWire, fragmentFromWire } from './shard-query-wire';

/** The most bytes of rows one Query message carries: a large batch is split, so messages stay well under gRPC's limits. */
export const ROWS_MESSAGE_BYTES = 1 << 20;

/** The refusal of a fragment that hit a query limit here; its fact `code` is the limit's code. */
export const QUERY_LIMIT_REFUSAL = 'query-limit';
/** The refusal of a fragment while this node catches up (catch-up.ts): the caller asks the keys' other owners. */
export const CATCHING_UP_REFUSAL = 'catching-up';

/**
 * The refusal of a fragment whose listed index names lack one this node holds that the query's
 * `from` matches (fact `indexes`: those names, comma-separated): the coordinator asks the nodes'
 * keys instead.
 */
export const INDEXES_UNLISTED_REFUSAL = 'indexes-unlisted';

/**
 * The refusal of a read (a fragment, a catalog) that named only some keys of a storage group this
 * node stores in one segment: a coordinator asks one owner for all of a group's keys or none
 * (storage-groups.ts), and the rows of a group's segment cannot be told apart by partition.
 */
export const GROUP_SPLIT_REFUSAL = 'group-split';

/** The refusal of a read that named some keys of a storage group but not all (PartialSegmentError). */
export function groupSplitRefusal(error: PartialSegmentError): RpcRefusal {
  return new RpcRefusal(grpc.status.FAILED_PRECONDITION, GROUP_SPLIT_REFUSAL, error.message);
}

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

/** What a fragment is served with: the service's options, the floors of running fragments, and where unexpected errors go (the log). */
export interface FragmentServing {
  options: ShardQueryServiceOptions;
  floors: FragmentFloors;
  onFailure: (error: Error) => void;
}

/** How one fragment's messages reach its caller. */
export interface FragmentTransport {
  /** Aborted once the caller is gone (canceled, or the call closed): nothing more is sent. */
  readonly gone: AbortSignal;
  /** Writes a message; resolves once the transport takes more. */
  write(message: wire.ShardQueryMessage): Promise<void>;
  /** After the result, the fragment's last message. */
  end(): void;
  /** The fragment ended without a result. */
  refuse(refusal: RpcRefusal): void;
  /** An unexpected failure here, in the words a caller is told (its details are in this node's log). */
  fail(details: string): void;
}

export function checkProtocol(version: wire.ProtocolVersion | null): void {
  const problem = protocolProblem(version, 'the caller');
  if (problem !== null) throw new RpcRefusal(grpc.status.FAILED_PRECONDITION, 'protocol-version', problem);
}

/** The fragment as it may run here now, or the refusal its caller gets. */
function admitted(serving: FragmentServing, request: wire.ShardQueryRequest): ReturnType<typeof fragmentFromWire> | RpcRefusal {
  try {
    checkProtocol(request.protocol_version);
    const fragment = fragmentFromWire(request);
    const catchingUp = serving.options.catchingUp?.() ?? null;
    if (catchingUp !== null)
      return new RpcRefusal(grpc.status.UNAVAILABLE, CATCHING_UP_REFUSAL, `${catchingUp}; ask the keys' other owners`);
    return fragment;
  } catch (error) {
    return error instanceof RpcRefusal ? error : new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-fragment', (error as Error).message);
  }
}

/**
 * Runs the fragment `request` for at most `timeoutMs` (Infinity: only this node's own
 * `query.max_query_runtime`) and answers through `transport`.
 */
export function serveFragment(
  serving: FragmentServing,
  request: wire.ShardQueryRequest,
  timeoutMs: number,
  transport: FragmentTransport,
): void {
  const { options, floors } = serving;
  const fragment = admitted(serving, request);
  if (fragment instanceof RpcRefusal) return transport.refuse(fragment);
  const releaseSlot = options.slots.tryTake();
  if (releaseSlot === null) {
    const { running, limit } = options.slots;
    const message = `all ${limit} query slots of this node are taken (query.max_concurrent); retry shortly`;
    return transport.refuse(
      new RpcRefusal(grpc.status.RESOURCE_EXHAUSTED, QUERY_SLOTS_REFUSAL, message, { running: String(running), limit: String(limit) }),
    );
  }
  const controller = new AbortController();
  const signal = controller.signal;
  const onGone = (): void => controller.abort(new QueryLimitError('QUERY_CANCELED', 'the coordinator canceled the query'));
  // A caller that left before the fragment started has already had its event.
  if (transport.gone.aborted) onGone();
  else transport.gone.addEventListener('abort', onGone, { once: true });
  const runtimeMs = Math.min(timeoutMs, options.maxQueryRuntimeMs());
  const timer = setTimeout(
    () => controller.abort(new QueryLimitError('QUERY_TIMEOUT', `the query fragment ran longer than ${runtimeMs} ms`)),
    Math.max(0, runtimeMs),
  );
  timer.unref();

  const send = (message: Omit<wire.ShardQueryMessage, 'protocol_version'>): Promise<void> =>
    signal.aborted ? Promise.resolve() : transport.write({ protocol_version: protocolVersion(), ...message });
  const progress = new QueryProgress();
  // A caller of 1.7 or later reads the last counters beside the result: one message less each way.
  const folded = (request.protocol_version?.minor ?? 0) >= FINAL_PROGRESS_MINOR;
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
      runFragment(options.source, options.workers, fragment, signal, onRows, { ...options.fragment, progress, headFloor: entry.floor }),
    )
    .then(
      async (result) => {
        stopAll();
        const finalProgress = folded ? { final_progress: countersToWire(countersOf(progress)) } : {};
        await send({ result: encodeShardResult(result), ...finalProgress });
        transport.end();
      },
      (error: unknown) => {
        stopAll();
        if (transport.gone.aborted) return;
        if (error instanceof IndexesUnlistedError) {
          const facts = { indexes: error.indexes.join(',') };
          transport.refuse(new RpcRefusal(grpc.status.FAILED_PRECONDITION, INDEXES_UNLISTED_REFUSAL, error.message, facts));
        } else if (error instanceof QueryLimitError) {
          transport.refuse(new RpcRefusal(grpc.status.FAILED_PRECONDITION, QUERY_LIMIT_REFUSAL, error.message, { code: error.code }));
        } else if (error instanceof QueryError) {
          transport.refuse(new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-fragment', error.message));
        } else if (error instanceof PartialSegmentError) {
          transport.refuse(groupSplitRefusal(error));
        } else {
          const failure = error instanceof Error ? error : new Error(String(error));
          serving.onFailure(failure);
          transport.fail(internalDetails(failure));
        }
      },
    )
    .finally(() => {
      releaseSlot();
      clearTimeout(timer);
      transport.gone.removeEventListener('abort', onGone);
    });
}
