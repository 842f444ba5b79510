/**
 * The messages between the main thread and a query worker (query/worker/query-worker.ts), which
 * hosts shard sessions so that decoding and evaluating batches runs off the main event loop.
 */
import type { ChunkScan } from '../../storage/buffer/chunk-read';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { PayloadCacheCounters } from '../../storage/segment/payload-cache';
import type { BlockInput } from '../../storage/read/block-input';
import type { ShardResult, ShardSession, UnitAck } from './shard-session';
import type { HeldDelta } from './held-blocks';

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
  /**
   * A `head N` fragment's share (fragment-plan.ts): the node returns its newest `newestShare` rows
   * instead of N, and the coordinator asks again where the share may have cut the answer short.
   */
  newestShare?: number;
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
export type WorkerResponse =
  /** `cache`: the worker's block cache counters, for the pool's metrics. */
  (
    | { type: 'ack'; session: number; seq: number; ack: UnitAck; cache: PayloadCacheCounters }
    | { type: 'preview'; session: number; seq: number; rows: ReturnType<ShardSession['preview']> }
    | { type: 'result'; session: number; seq: number; result: ShardResult }
    | { type: 'error'; session: number; seq: number; message: string }
  ) & { held?: HeldDelta; heap?: number };
