/**
 * The Tail service: another member that holds a live tail session subscribes to this node's
 * ingest bus. Events this node acknowledged as the entry node of their request go through the
 * query's stages before its first `head` here, and the matches stream to the caller. This node
 * never waits for the caller: while more than a bound of messages wait unsent, matches are
 * dropped and counted, and the count rides on the next message.
 */
import * as grpc from '@grpc/grpc-js';
import { liveTailPlan, unsupportedTailStage, unsupportedTailStageMessage } from '../../coordinator/tail';
import { matchChunks } from '../../query/exec/live-pipeline';
import type { Row } from '../../query/exec/rows';
import { encodePlainRows } from '../../query/exec/shard-results';
import type { QueryPlan } from '../../query/plan/plan';
import { parseQuery, QueryError } from '../../query/stages';
import { indexMatcher } from '../../storage/scan';
import type { IngestBus } from '../tail/ingest-bus';
import type * as wire from './grpc/messages';
import { TAIL_SERVICE } from './grpc/proto';
import { endWith, RpcRefusal, type GrpcServer } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import { protocolProblem } from './protocol';

/** The refusal of a subscription whose query this node will not run. */
export const INVALID_TAIL_QUERY_REFUSAL = 'invalid-tail-query';
/** The longest query text a subscription may carry (as a query fragment's). */
const MAX_TEXT_BYTES = 256 * 1024;
/** Messages that may wait unsent to one caller before matches are dropped. */
export const MAX_UNSENT_MESSAGES = 64;
/** Rows per message at most: a large request's matches go out in several. */
const ROWS_PER_MESSAGE = 2_000;

type SubscribeCall = grpc.ServerWritableStream<wire.TailSubscribeRequest, wire.TailEvents>;

/** The subscription's plan, or the refusal of a request no client's tail could have sent. */
function planOf(request: wire.TailSubscribeRequest): QueryPlan {
  const problem = protocolProblem(request.protocol_version, 'the caller');
  if (problem !== null) throw new RpcRefusal(grpc.status.FAILED_PRECONDITION, 'protocol-version', problem);
  const refuse = (message: string): RpcRefusal => new RpcRefusal(grpc.status.INVALID_ARGUMENT, INVALID_TAIL_QUERY_REFUSAL, message);
  if (Buffer.byteLength(request.text) > MAX_TEXT_BYTES) throw refuse(`the query text is over ${MAX_TEXT_BYTES} bytes`);
  if (!Number.isSafeInteger(request.now_micros) || request.now_micros < 0) throw refuse(`now_micros ${request.now_micros} is not a time`);
  try {
    const query = parseQuery(request.text);
    const stage = unsupportedTailStage(query);
    if (stage !== null) throw refuse(unsupportedTailStageMessage(stage));
    return liveTailPlan(query, request.now_micros);
  } catch (error) {
    if (error instanceof QueryError) throw refuse(`the query does not parse: ${error.message}`);
    throw error;
  }
}

export interface TailService {
  /** Ends every subscription (the node stops). */
  close(): void;
}

export function addTailService(server: GrpcServer, bus: IngestBus, onFailure: (error: Error) => void): TailService {
  const open = new Set<() => void>();

  const subscribe = (call: SubscribeCall): void => {
    let plan: QueryPlan;
    try {
      plan = planOf(call.request);
    } catch (error) {
      if (error instanceof RpcRefusal) endWith(call, error);
      else {
        onFailure(error instanceof Error ? error : new Error(String(error)));
        call.emit('error', { code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    const ofIndex = indexMatcher(plan.indexPatterns);
    let dropped = 0;
    const message = (rows: Buffer, error = ''): wire.TailEvents => {
      const reported = dropped;
      dropped = 0;
      return { protocol_version: protocolVersion(), rows, dropped: reported, error };
    };
    const unsubscribe = bus.subscribe((chunks) => {
      let rows: Row[];
      try {
        rows = matchChunks(plan, chunks, ofIndex);
      } catch (error) {
        call.write(message(Buffer.alloc(0), `the query's stages failed over events ingested here: ${(error as Error).message}`));
        return;
      }
      for (let start = 0; start < rows.length; start += ROWS_PER_MESSAGE) {
        const part = rows.slice(start, start + ROWS_PER_MESSAGE);
        if (call.writableLength >= MAX_UNSENT_MESSAGES) dropped += part.length;
        else call.write(message(encodePlainRows(part)));
      }
    });
    const stop = (): void => {
      unsubscribe();
      open.delete(stop);
    };
    const close = (): void => {
      stop();
      call.end();
    };
    open.add(close);
    call.on('cancelled', stop);
    call.on('close', stop);
    call.on('error', stop);
    if (call.cancelled) stop();
    // The first message: this node listens from now on.
    else call.write(message(Buffer.alloc(0)));
  };

  server.addService(TAIL_SERVICE, { Subscribe: subscribe });
  return {
    close: () => {
      for (const close of [...open]) close();
    },
  };
}
