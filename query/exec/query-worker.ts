/**
 * Query worker thread: hosts shard sessions so that decoding and evaluating batches runs off the
 * main event loop. The main thread keeps the scan plan and RocksDB reads and sends compressed
 * blocks here; a session is rebuilt from the query text with the same deterministic planner.
 */
import { parentPort, workerData } from 'worker_threads';
import type { ChunkScan } from '../../storage/buffer/chunk-read';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import { payloadCacheCounters, setPayloadCacheBytes, type PayloadCacheCounters } from '../../storage/segment/payload-cache';
import { planQuery } from '../plan/planner';
import { parseQuery } from '../syntax';
import type { BlockInput } from '../../storage/read/block-input';
import { ShardSession, type ShardResult, type UnitAck } from './shard-session';
import { fillHeld, HeldBlocks, keepReceived, type HeldDelta } from './held-blocks';

/** A query as both the coordinator and a shard receive it: text, variables, clock, page. */
export interface QueryInput {
  text: string;
  variables: Record<string, unknown>;
  fromMicros: number;
  toMicros: number;
  nowMicros: number;
  limit: number;
  offset: number;
}

/** What a query worker is started with. */
export interface QueryWorkerData {
  /** This worker's budget for decompressed column blocks (0: none). */
  payloadCacheBytes: number;
  /** This worker's budget for the stored blocks it holds (held-blocks.ts; 0: none). */
  heldBlockBytes: number;
}

export interface SessionSpec extends QueryInput {
  profile: boolean;
  trace: boolean;
  stream: boolean;
}

/** Every request also carries `release` (held-blocks.ts): the worker may drop blocks evicted in responses up to it. */
export type WorkerRequest = (
  | { type: 'open'; session: number; spec: SessionSpec }
  | { type: 'blocks'; session: number; seq: number; blocks: BlockInput[] }
  | { type: 'chunk'; session: number; seq: number; chunk: EventChunk; scan: ChunkScan }
  | { type: 'preview'; session: number; seq: number; limit: number }
  | { type: 'finish'; session: number; seq: number }
  | { type: 'close'; session: number }
) & { release?: number };

/** Every response also carries `held`: the stored blocks held and dropped since the previous response. */
export type WorkerResponse = (
  /** `cache`: the worker's block cache counters, for the pool's metrics. */
  | { type: 'ack'; session: number; seq: number; ack: UnitAck; cache: PayloadCacheCounters }
  | { type: 'preview'; session: number; seq: number; rows: ReturnType<ShardSession['preview']> }
  | { type: 'result'; session: number; seq: number; result: ShardResult }
  | { type: 'error'; session: number; seq: number; message: string }
) & { held?: HeldDelta };

export function openSession(spec: SessionSpec): ShardSession {
  const plan = planQuery(parseQuery(spec.text, spec.variables), {
    fromMicros: spec.fromMicros,
    toMicros: spec.toMicros,
    nowMicros: spec.nowMicros,
  });
  return new ShardSession(plan, spec);
}

if (parentPort !== null) {
  const port = parentPort;
  const data = workerData as QueryWorkerData | null;
  setPayloadCacheBytes(data?.payloadCacheBytes ?? 0);
  const heldBlocks = new HeldBlocks(data?.heldBlockBytes ?? 0);
  const cache = (): PayloadCacheCounters => {
    const counters = payloadCacheCounters();
    return { ...counters, bytes: counters.bytes + heldBlocks.bytes };
  };
  // Every response goes through here: the main thread counts them (held-blocks.ts).
  const reply = (response: WorkerResponse): void => port.postMessage({ ...response, held: heldBlocks.delta() } satisfies WorkerResponse);
  const sessions = new Map<number, ShardSession>();
  port.on('message', (request: WorkerRequest) => {
    if (request.release !== undefined) heldBlocks.release(request.release);
    try {
      switch (request.type) {
        case 'open':
          sessions.set(request.session, openSession(request.spec));
          return;
        case 'close':
          sessions.delete(request.session);
          return;
      }
      const session = sessions.get(request.session);
      // A closed (canceled) session ignores the units still in flight.
      if (session === undefined) {
        reply({ type: 'error', session: request.session, seq: request.seq, message: 'session closed' });
        return;
      }
      switch (request.type) {
        case 'blocks': {
          for (const block of request.blocks) fillHeld(heldBlocks, block);
          for (const block of request.blocks) {
            session.processBlock(block);
            keepReceived(heldBlocks, block);
          }
          reply({ type: 'ack', session: request.session, seq: request.seq, ack: session.ack(), cache: cache() });
          return;
        }
        case 'chunk': {
          session.processChunk(request.chunk, request.scan);
          reply({ type: 'ack', session: request.session, seq: request.seq, ack: session.ack(), cache: cache() });
          return;
        }
        case 'preview':
          reply({ type: 'preview', session: request.session, seq: request.seq, rows: session.preview(request.limit) });
          return;
        case 'finish':
          sessions.delete(request.session);
          reply({ type: 'result', session: request.session, seq: request.seq, result: session.finish() });
          return;
      }
    } catch (error) {
      const seq = 'seq' in request ? request.seq : -1;
      // The message reaches API clients: no stack trace in it.
      reply({ type: 'error', session: request.session, seq, message: error instanceof Error ? error.message : String(error) });
    }
  });
}
