/**
 * Another node as a shard target: its ShardQuery.Keys call, and a fragment run as a frame of the
 * node's long-lived Fragments call (fragment-streams.ts) or, for an export or a peer before 1.9,
 * as a Query call of its own. Either has the query's deadline; the query's abort cancels it (the
 * callee stops its work at once). Export rows are handed on one batch at a time: the Query stream
 * is paused while a batch is written, so a slow client holds the remote scan back instead of
 * filling this node's memory.
 */
import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'crypto';
import type { CatalogPart, CatalogRequest } from '../../coordinator/catalog-parts';
import {
  IndexesUnlistedError,
  ShardBusyError,
  type ShardCall,
  type ShardFragment,
  type ShardTarget,
} from '../../coordinator/scatter-gather';
import { QueryLimitError, type QueryLimitCode } from '../../query/exec/limits';
import { decodeRows, decodeShardResult } from '../../query/exec/shard-results';
import type { ShardResult } from '../../query/exec/shard-session';
import type * as wire from './grpc/messages';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { SHARD_QUERY } from './grpc/proto';
import { protocolVersion } from './grpc/wire';
import { INDEXES_UNLISTED_REFUSAL, QUERY_LIMIT_REFUSAL, QUERY_SLOTS_REFUSAL } from './fragment-serving';
import type { FragmentListener, FragmentStreams } from './fragment-streams';
import { countersFromWire, fragmentToWire } from './shard-query-wire';

/** The longest a Keys call may take (within the query's own deadline). */
export const KEYS_TIMEOUT_MS = 5_000;

const LIMIT_CODES: ReadonlySet<string> = new Set<QueryLimitCode>([
  'QUERY_MEMORY_EXCEEDED',
  'QUERY_POOL_EXHAUSTED',
  'QUERY_CANCELED',
  'QUERY_TIMEOUT',
]);

/**
 * A failed call as what the coordinator acts on: a query limit ends the query, a node without a
 * free query slot is busy (its keys wait or go elsewhere), a node holding an index the fragment
 * did not list has the query ask the nodes' keys instead, anything else retries the keys elsewhere.
 */
function callError(failure: PeerCallError): Error {
  const address = failure.address;
  const code = failure.facts.code;
  if (failure.reason === QUERY_SLOTS_REFUSAL) return new ShardBusyError(`node at ${address} is busy: ${failure.details}`);
  if (failure.reason === INDEXES_UNLISTED_REFUSAL && failure.facts.indexes !== undefined) {
    return new IndexesUnlistedError(failure.facts.indexes.split(','), `the node at ${address}`);
  }
  if (failure.reason === QUERY_LIMIT_REFUSAL && code !== undefined && LIMIT_CODES.has(code)) {
    return new QueryLimitError(code as QueryLimitCode, `node at ${address}: ${failure.details}`);
  }
  if (failure.code === grpc.status.DEADLINE_EXCEEDED)
    return new QueryLimitError(
      'QUERY_TIMEOUT',
      `the query ran past its deadline (query.max_query_runtime) waiting for the node at ${address}`,
    );
  return failure;
}

/** The keys a node holds in a range. */
export async function remoteKeys(
  peers: PeerClients,
  address: string,
  range: { indexPatterns: readonly string[]; fromMicros: number; toMicros: number; deadlineMs: number },
): Promise<string[]> {
  const timeoutMs = Math.max(1, Math.min(KEYS_TIMEOUT_MS, range.deadlineMs - Date.now()));
  const request: wire.ShardKeysRequest = {
    protocol_version: protocolVersion(),
    index_patterns: [...range.indexPatterns],
    from_micros: range.fromMicros,
    to_micros: range.toMicros,
  };
  return (await peers.call(address, SHARD_QUERY.Keys, request, timeoutMs)).keys;
}

/**
 * Sends a running fragment the rises of its query's head floor: one RaiseFloor in flight at a
 * time, the newest rise after it; none of the rises the callee made itself. A call that fails
 * (the fragment ended, a peer of 1.1 without the method) stops the sending: the floor only saves
 * work, the answer is whole without it.
 */
class FloorRaiser {
  private sent = -Infinity;
  private pending = -Infinity;
  private inFlight = false;
  private stopped = false;

  constructor(
    private readonly peers: PeerClients,
    private readonly address: string,
    private readonly fragmentId: string,
    private readonly deadlineMs: number,
  ) {}

  /** The callee raised the floor to `time` itself. */
  heard(time: number): void {
    if (time > this.sent) this.sent = time;
  }

  raise(time: number): void {
    if (this.stopped || time <= this.sent || time <= this.pending) return;
    this.pending = time;
    if (!this.inFlight) void this.flush();
  }

  stop(): void {
    this.stopped = true;
  }

  private async flush(): Promise<void> {
    this.inFlight = true;
    while (!this.stopped && this.pending > this.sent) {
      const time = this.pending;
      this.sent = time;
      const request: wire.RaiseFloorRequest = { protocol_version: protocolVersion(), fragment_id: this.fragmentId, time };
      try {
        const reply = await this.peers.call(
          this.address,
          SHARD_QUERY.RaiseFloor,
          request,
          Math.max(1, Math.min(KEYS_TIMEOUT_MS, this.deadlineMs - Date.now())),
        );
        if (!reply.running) this.stopped = true;
      } catch {
        this.stopped = true;
      }
    }
    this.inFlight = false;
  }
}

/** The longest a Catalog call may take (within the request's own deadline): it reads headers only. */
export const CATALOG_TIMEOUT_MS = 10_000;

/** A started fragment as run() drives it; only a Query call's stream pauses (an export's). */
interface FragmentCall {
  cancel(): void;
  pause(): void;
  resume(): void;
}

/**
 * How late a silence timer may fire before this process counts the wait as its own stall rather
 * than the node's silence: half the timeout, and at least 250 ms (a busy event loop is that late).
 */
function lateTimerMs(silenceMs: number): number {
  return Math.max(250, silenceMs / 2);
}

export class RemoteShardTarget implements ShardTarget {
  constructor(
    readonly node: string,
    private readonly address: string,
    private readonly peers: PeerClients,
    /** The query's deadline, ms since the epoch. */
    private readonly deadlineMs: number,
    /**
     * The longest the running fragment may send nothing (its progress comes every 250 ms): the
     * cluster's failure timeout, after which membership would call the node down anyway. A node
     * that stopped answering, yet is not down for membership yet, then has its keys asked of the
     * other owners instead of holding the query to its deadline. While this node holds the stream
     * back (an export's slow client), the callee cannot send, so the watch waits too.
     */
    private readonly silenceMs: number,
    /** The calls to the peers that carry many fragments each; null: a Query call per fragment (a peer before 1.9). */
    private readonly streams: FragmentStreams | null = null,
    /** The peer reads a fragment's keys as runs (protocol.ts KEY_RUNS_MINOR); false: as strings. */
    private readonly keyRuns = false,
  ) {}

  /** The node's catalog part of `keys` (ShardQuery.Catalog). */
  async catalog(keys: readonly string[], request: CatalogRequest, signal: AbortSignal): Promise<CatalogPart> {
    const wireRequest: wire.ShardCatalogRequest = {
      protocol_version: protocolVersion(),
      keys: [...keys],
      from_micros: request.fromMicros,
      to_micros: request.toMicros,
      prefix: request.prefix,
      source: request.source ?? '',
    };
    const timeoutMs = Math.max(1, Math.min(CATALOG_TIMEOUT_MS, this.deadlineMs - Date.now()));
    signal.throwIfAborted();
    const reply = await this.peers.call(this.address, SHARD_QUERY.Catalog, wireRequest, timeoutMs);
    return JSON.parse(reply.part.toString('utf8')) as CatalogPart;
  }

  /**
   * Starts the fragment: on the peer's Fragments call when this node has one (a peer of 1.9 or
   * later), an export always on a Query call of its own, whose stream this node can pause.
   */
  private open(request: wire.ShardQueryRequest, listener: FragmentListener): FragmentCall {
    if (this.streams !== null && !request.stream) {
      const running = this.streams.start(this.address, request, this.deadlineMs - Date.now(), listener);
      return { cancel: () => running.cancel(), pause: () => undefined, resume: () => undefined };
    }
    const method = SHARD_QUERY.Query;
    const call = this.peers
      .client(this.address)
      .makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, request, { deadline: this.deadlineMs });
    call.on('data', (message: wire.ShardQueryMessage) => listener.message(message));
    call.on('error', (error: grpc.ServiceError) => listener.error(PeerCallError.from(this.address, error)));
    call.on('end', () => listener.end());
    return call;
  }

  run(fragment: ShardFragment, shardCall: ShardCall): Promise<ShardResult> {
    const { signal, onRows, onProgress, headFloor } = shardCall;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const fragmentId = headFloor === undefined ? '' : randomUUID();
      const request = fragmentToWire(fragment, { fragmentId, headFloor: headFloor?.current ?? -Infinity }, this.keyRuns);
      // The other shards' rises go to the callee; the callee's own come back as head_floor messages.
      const raiser = headFloor === undefined ? null : new FloorRaiser(this.peers, this.address, fragmentId, this.deadlineMs);
      const stopFloor = headFloor?.onRaise((time) => raiser?.raise(time)) ?? ((): void => undefined);
      let result: ShardResult | null = null;
      let settled = false;
      let handing: Promise<void> = Promise.resolve();
      let silence: NodeJS.Timeout | null = null;
      /** Messages heard from the node: a silence decided after a poll of the sockets checks it. */
      let heard = 0;
      const quiet = (): void => {
        if (silence !== null) clearTimeout(silence);
        silence = null;
      };
      const watch = (): void => {
        quiet();
        const armedAt = performance.now();
        silence = setTimeout(() => {
          silence = null;
          // This process may have stood still itself (SIGSTOP, swapping, a long pause): the
          // node's messages may then wait unread in the socket, and the wait proves nothing of
          // the node. The decision waits for one poll of the sockets (an immediate runs after
          // it), where a message is heard; a timer that fired late starts a fresh wait.
          const late = performance.now() - armedAt - this.silenceMs > lateTimerMs(this.silenceMs);
          const heardBefore = heard;
          setImmediate(() => {
            if (settled || heard !== heardBefore) return;
            if (late) return watch();
            call.cancel();
            settle(
              new PeerCallError(
                this.address,
                grpc.status.UNAVAILABLE,
                null,
                `the node sent nothing for ${this.silenceMs} ms in the middle of its fragment (cluster.failure_timeout)`,
              ),
            );
          });
        }, this.silenceMs);
        silence.unref();
      };
      const settle = (error: Error | null): void => {
        if (settled) return;
        settled = true;
        quiet();
        stopFloor();
        raiser?.stop();
        signal.removeEventListener('abort', cancel);
        if (error !== null) reject(error);
        else if (result === null)
          reject(new PeerCallError(this.address, grpc.status.INTERNAL, null, 'the shard stream ended without a result'));
        else resolve(result);
      };
      const cancel = (): void => {
        call.cancel();
        settle(signal.reason as Error);
      };
      const message = (message: wire.ShardQueryMessage): void => {
        heard++;
        watch();
        try {
          if (message.body === 'progress' && message.progress) onProgress?.(countersFromWire(message.progress));
          else if (message.body === 'head_floor' && message.head_floor) {
            raiser?.heard(message.head_floor.time);
            headFloor?.raise(message.head_floor.time);
          } else if (message.body === 'result' && message.result) {
            // The last counters come before the result is handed on, as a last progress message would.
            if (message.final_progress) onProgress?.(countersFromWire(message.final_progress));
            result = decodeShardResult(message.result);
          } else if (message.body === 'rows' && message.rows && onRows !== null) {
            const rows = decodeRows(message.rows.rows);
            const bound = message.rows.bound;
            call.pause();
            quiet();
            handing = handing
              .then(() => onRows(rows, bound))
              .then(
                () => {
                  if (!settled) watch();
                  call.resume();
                },
                (error: Error) => {
                  call.cancel();
                  settle(error);
                },
              );
          }
        } catch (error) {
          call.cancel();
          settle(error as Error);
        }
      };
      const call = this.open(request, {
        message,
        error: (error) => settle(callError(error)),
        end: () => void handing.then(() => settle(null)),
      });
      signal.addEventListener('abort', cancel, { once: true });
      watch();
    });
  }
}
