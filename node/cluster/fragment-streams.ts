/**
 * The long-lived ShardQuery.Fragments call to each peer: a fragment starts as a frame on it
 * instead of opening a Query call of its own. A call of its own costs both nodes an HTTP/2 stream,
 * its headers and trailers and grpc-js's per-call machinery, which for a small fragment is most
 * of what the callee spends on it (docs/benchmarks.md, "One fragment stream per peer").
 *
 * The call opens on a fragment's start and stays open. When it fails (the peer stopped, the
 * connection broke), every fragment running on it fails as a failed Query call would, and the
 * next fragment opens a new one. A reloaded certificate makes new channels: a call on an old one
 * takes no more fragments and ends once its running ones are answered.
 */
import * as grpc from '@grpc/grpc-js';
import type * as wire from './grpc/messages';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { SHARD_QUERY } from './grpc/proto';
import { protocolVersion } from './grpc/wire';

/** What a running fragment hears: its messages, then either its end (after a result) or its failure. */
export interface FragmentListener {
  message(message: wire.ShardQueryMessage): void;
  end(): void;
  error(error: PeerCallError): void;
}

/** A fragment started on a peer's call. */
export interface RunningFragment {
  /** Stops it: the callee is told, and the listener hears nothing more. */
  cancel(): void;
}

type FragmentsCall = grpc.ClientDuplexStream<wire.FragmentFrame, wire.FragmentReply>;

/**
 * How long a call with no fragment running stays open: a peer forgotten, or a channel replaced by
 * a certificate reload, is not asked again, and its call would hold the peer's server.
 */
export const IDLE_CALL_MS = 60_000;

/** One open Fragments call and the fragments running on it, by their ids. */
class FragmentCall {
  private nextId = 1;
  private readonly running = new Map<number, FragmentListener>();
  private readonly call: FragmentsCall;
  private closed = false;
  /** Takes no new fragments; ends once the running ones are answered. */
  private retired = false;
  private idle: NodeJS.Timeout | null = null;

  constructor(
    readonly client: grpc.Client,
    private readonly address: string,
    private readonly idleMs: number,
    private readonly onClosed: (call: FragmentCall) => void,
  ) {
    const method = SHARD_QUERY.Fragments;
    this.call = client.makeBidiStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, {});
    this.call.on('data', (reply: wire.FragmentReply) => this.replied(reply));
    this.call.on('error', (error: grpc.ServiceError) => this.fail(PeerCallError.from(address, error)));
    this.call.on('end', () =>
      this.fail(new PeerCallError(address, grpc.status.UNAVAILABLE, null, 'the node ended the fragment stream before answering')),
    );
  }

  get open(): boolean {
    return !this.closed && !this.retired;
  }

  start(request: wire.ShardQueryRequest, timeoutMs: number, listener: FragmentListener): RunningFragment {
    const id = this.nextId++;
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
    this.running.set(id, listener);
    this.call.write({ protocol_version: protocolVersion(), id, start: request, timeout_ms: Math.max(1, Math.ceil(timeoutMs)) });
    return {
      cancel: () => {
        if (!this.running.delete(id) || this.closed) return;
        this.call.write({ protocol_version: protocolVersion(), id, cancel: true, timeout_ms: 0 });
        this.endIfIdle();
      },
    };
  }

  retire(): void {
    this.retired = true;
    this.endIfIdle();
  }

  /** Cuts the call: its running fragments fail. */
  cancel(): void {
    this.call.cancel();
  }

  private replied(reply: wire.FragmentReply): void {
    const listener = this.running.get(reply.id);
    // A fragment canceled here may still have had replies on the way.
    if (listener === undefined) return;
    if (reply.body === 'message' && reply.message) {
      listener.message(reply.message);
      if (reply.message.body !== 'result') return;
      this.running.delete(reply.id);
      listener.end();
    } else {
      this.running.delete(reply.id);
      const failure = reply.body === 'failure' ? reply.failure : null;
      listener.error(
        failure
          ? new PeerCallError(this.address, failure.code, failure.reason === '' ? null : failure.reason, failure.details, failure.facts)
          : new PeerCallError(
              this.address,
              grpc.status.INTERNAL,
              null,
              'the node sent a fragment reply with neither a message nor a failure',
            ),
      );
    }
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (this.closed || this.running.size > 0) return;
    if (this.retired) {
      this.closed = true;
      this.call.end();
      this.onClosed(this);
    } else if (this.idle === null) {
      this.idle = setTimeout(() => this.retire(), this.idleMs);
      this.idle.unref();
    }
  }

  private fail(error: PeerCallError): void {
    const wasClosed = this.closed;
    this.closed = true;
    if (this.idle !== null) clearTimeout(this.idle);
    const running = [...this.running.values()];
    this.running.clear();
    for (const listener of running) listener.error(error);
    if (!wasClosed) this.onClosed(this);
  }
}

export class FragmentStreams {
  private readonly calls = new Map<string, FragmentCall>();

  constructor(
    private readonly peers: PeerClients,
    private readonly idleMs = IDLE_CALL_MS,
  ) {}

  /**
   * Starts a fragment on the call to `address`, opening one if none is open. It may run for
   * `timeoutMs`: past that its listener hears DEADLINE_EXCEEDED, as a Query call's deadline would.
   */
  start(address: string, request: wire.ShardQueryRequest, timeoutMs: number, listener: FragmentListener): RunningFragment {
    const client = this.peers.client(address);
    let call = this.calls.get(address);
    if (call !== undefined && call.client !== client) call.retire();
    if (call === undefined || !call.open) {
      call = new FragmentCall(client, address, this.idleMs, (closed) => {
        if (this.calls.get(address) === closed) this.calls.delete(address);
      });
      this.calls.set(address, call);
    }
    let timer: NodeJS.Timeout | null = null;
    const settled = (): void => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    };
    const running = call.start(request, timeoutMs, {
      message: (message) => listener.message(message),
      end: () => {
        settled();
        listener.end();
      },
      error: (error) => {
        settled();
        listener.error(error);
      },
    });
    timer = setTimeout(() => {
      timer = null;
      running.cancel();
      listener.error(new PeerCallError(address, grpc.status.DEADLINE_EXCEEDED, null, 'Deadline exceeded'));
    }, timeoutMs);
    timer.unref();
    return {
      cancel: () => {
        settled();
        running.cancel();
      },
    };
  }

  /** Cuts every call (the node stops): the peers' servers are not held open by this node's calls. */
  close(): void {
    for (const call of this.calls.values()) call.cancel();
    this.calls.clear();
  }
}
