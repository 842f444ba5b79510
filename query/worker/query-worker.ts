/**
 * Query worker thread: hosts shard sessions so that decoding and evaluating batches runs off the
 * main event loop. The main thread keeps the scan plan and RocksDB reads and sends compressed
 * blocks here; a session is rebuilt from the query text with the same deterministic planner.
 */
import { parentPort, workerData } from 'worker_threads';
import { threadHeapBytes } from '../../storage/threads/thread-memory';
import { payloadCacheCounters, setPayloadCacheBytes, type PayloadCacheCounters } from '../../storage/segment/payload-cache';
import { fillHeld, HeldBlocks, keepReceived } from '../exec/held-blocks';
import { ShardSession } from '../exec/shard-session';
import type { QueryWorkerData, SessionSpec, WorkerRequest, WorkerResponse } from '../exec/worker-protocol';
import { planFragment } from '../stages/fragment-plan';

export function openSession(spec: SessionSpec): ShardSession {
  return new ShardSession(planFragment(spec), spec);
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
  const reply = (response: WorkerResponse): void =>
    port.postMessage({ ...response, held: heldBlocks.delta(), heap: threadHeapBytes() } satisfies WorkerResponse);
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
          session.processBlocks(request.blocks);
          for (const block of request.blocks) keepReceived(heldBlocks, block);
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
