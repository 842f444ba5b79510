/**
 * ShardQuery.Fragments as this node serves it: one long-lived call from a coordinator carrying
 * many fragments, each started by a frame and answered by replies that name it (fragment-streams.ts
 * is the caller's side). Each fragment is served as on a Query call of its own
 * (fragment-serving.ts) and ends with its result or its failure. A frame that breaks the call's
 * own rules (no protocol version this node speaks, an id below 1 or of a running fragment, no
 * body) ends the whole call INVALID_ARGUMENT, and its fragments with it: the caller is broken.
 * When this node stops, every call ends as soon as its fragments are answered, and a fragment
 * started meanwhile is refused UNAVAILABLE, so the caller asks the keys' other owners.
 */
import * as grpc from '@grpc/grpc-js';
import type * as wire from './grpc/messages';
import { endWith, RpcRefusal, writeWhenReady, type GrpcServer } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import { protocolProblem } from './protocol';
import { serveFragment, type FragmentServing, type FragmentTransport } from './fragment-serving';

/** The refusal of a frame that breaks the Fragments call's rules: the whole call ends with it. */
export const INVALID_FRAME_REFUSAL = 'invalid-frame';
/** The refusal of a fragment started while this node stops. */
export const STOPPING_REFUSAL = 'stopping';

type FragmentsCall = grpc.ServerDuplexStream<wire.FragmentFrame, wire.FragmentReply>;

/** Why a frame breaks the call's rules, or null. */
function frameProblem(frame: wire.FragmentFrame, running: ReadonlyMap<number, unknown>): string | null {
  const problem = protocolProblem(frame.protocol_version, 'the caller');
  if (problem !== null) return problem;
  if (!Number.isSafeInteger(frame.id) || frame.id < 1) return `a frame's id must be a whole number from 1, not ${frame.id}`;
  if (frame.body === 'start') {
    if (!frame.start) return `the frame starting fragment ${frame.id} has no request`;
    if (running.has(frame.id)) return `fragment ${frame.id} is running already: a start needs an id of no running fragment`;
    if (!Number.isSafeInteger(frame.timeout_ms)) return `timeout_ms is not a whole number: ${frame.timeout_ms}`;
    return null;
  }
  if (frame.body === 'cancel') return null;
  return `frame ${frame.id} neither starts nor cancels a fragment`;
}

/** One Fragments call as this node serves it. */
class ServedCall {
  /** Each running fragment's "caller gone" switch. */
  private readonly running = new Map<number, AbortController>();
  private ended = false;
  private callerDone = false;

  constructor(
    private readonly call: FragmentsCall,
    private readonly serving: FragmentServing,
    private readonly stopping: () => boolean,
    private readonly onEnded: () => void,
  ) {
    call.on('data', (frame: wire.FragmentFrame) => this.received(frame));
    // The caller sends no more frames: the call ends once its fragments are answered.
    call.on('end', () => {
      this.callerDone = true;
      this.endIfIdle();
    });
    call.on('cancelled', () => this.close());
    call.on('error', () => this.close());
  }

  /** This node stops: the call ends once its fragments are answered. */
  drain(): void {
    this.endIfIdle();
  }

  private received(frame: wire.FragmentFrame): void {
    if (this.ended) return;
    const problem = frameProblem(frame, this.running);
    if (problem !== null) {
      this.close();
      return endWith(this.call, new RpcRefusal(grpc.status.INVALID_ARGUMENT, INVALID_FRAME_REFUSAL, problem));
    }
    if (frame.body === 'cancel') {
      this.running.get(frame.id)?.abort();
      this.running.delete(frame.id);
      return this.endIfIdle();
    }
    const gone = new AbortController();
    this.running.set(frame.id, gone);
    const transport = this.transport(frame.id, gone);
    if (this.stopping()) {
      return transport.refuse(
        new RpcRefusal(grpc.status.UNAVAILABLE, STOPPING_REFUSAL, "this node is stopping; ask the keys' other owners"),
      );
    }
    if (frame.start!.stream) {
      return transport.refuse(
        new RpcRefusal(
          grpc.status.INVALID_ARGUMENT,
          'invalid-fragment',
          'an export runs on a Query call of its own, not on the Fragments call',
        ),
      );
    }
    serveFragment(this.serving, frame.start!, frame.timeout_ms === 0 ? Infinity : frame.timeout_ms, transport);
  }

  private transport(id: number, controller: AbortController): FragmentTransport {
    const gone = controller.signal;
    const reply = (body: Pick<wire.FragmentReply, 'message' | 'failure'>): Promise<void> =>
      this.ended ? Promise.resolve() : writeWhenReady(this.call, { protocol_version: protocolVersion(), id, ...body }, gone);
    const finished = (): void => {
      // A caller may start the id again once it canceled this run: that run is not ended here.
      if (this.running.get(id) === controller) this.running.delete(id);
      this.endIfIdle();
    };
    const failure = (code: grpc.status, details: string, reason = '', facts: Readonly<Record<string, string>> = {}): void => {
      if (!gone.aborted) void reply({ failure: { code, details, reason, facts: { ...facts } } });
      finished();
    };
    return {
      gone,
      write: (message) => reply({ message }),
      end: finished,
      refuse: (refusal) => failure(refusal.code, refusal.message, refusal.reason, refusal.facts),
      fail: (details) => failure(grpc.status.INTERNAL, details),
    };
  }

  private endIfIdle(): void {
    if (this.ended || this.running.size > 0 || !(this.callerDone || this.stopping())) return;
    this.ended = true;
    this.call.end();
    this.onEnded();
  }

  /** The caller is gone, or broke the rules: every running fragment stops. */
  private close(): void {
    if (this.ended) return;
    this.ended = true;
    for (const gone of this.running.values()) gone.abort();
    this.running.clear();
    this.onEnded();
  }
}

/** The Fragments handler; `server`'s close drains its calls. */
export function fragmentStreamHandler(
  server: GrpcServer,
  serving: FragmentServing,
): grpc.handleBidiStreamingCall<wire.FragmentFrame, wire.FragmentReply> {
  const open = new Set<ServedCall>();
  let stopping = false;
  server.onClose(() => {
    stopping = true;
    for (const call of [...open]) call.drain();
  });
  return (call) => {
    const served: ServedCall = new ServedCall(
      call,
      serving,
      () => stopping,
      () => open.delete(served),
    );
    open.add(served);
  };
}
