/**
 * Clients to the other nodes: one gRPC client (one channel, one HTTP/2 connection) per peer
 * address, made on first use and reused by every service; every call has a deadline. With
 * `tls.enabled` the channels are TLS, trusting `tls.ca_file` (the system's CAs without it) and
 * presenting the node's certificate; a reload of the certificate makes new channels.
 */
import * as grpc from '@grpc/grpc-js';
import type { TlsFiles, TlsMaterial } from '../../core/tls-material';
import { callObserver, type FinishedCall } from './call-observer';
import { GRPC_MAX_REPLY_BYTES, GRPC_MAX_REQUEST_BYTES } from './limits';
import { FACT_PREFIX, REFUSAL_KEY } from './server';

/** A call to a peer that failed: unreachable (no answer in time) or refused by it. */
export class PeerCallError extends Error {
  constructor(
    readonly address: string,
    readonly code: grpc.status,
    /** The callee's refusal reason (RpcRefusal), null for transport failures. */
    readonly reason: string | null,
    /** What the callee (or the transport) said. */
    readonly details: string,
    /** The refusal's facts (RpcRefusal.facts). */
    readonly facts: Readonly<Record<string, string>> = {},
  ) {
    super(`${address}: ${details}`);
    this.name = 'PeerCallError';
  }

  /** No answer: the peer is down, not listening, or slower than the deadline. */
  get unreachable(): boolean {
    return this.code === grpc.status.UNAVAILABLE || this.code === grpc.status.DEADLINE_EXCEEDED;
  }

  /** What failed, in words an operator reads: a transport failure's details wrap the socket error in gRPC's own notes. */
  get plainDetails(): string {
    if (!this.unreachable) return this.details;
    if (/ECONNREFUSED/.test(this.details)) return 'connection refused: nothing listens at that address';
    if (/ENOTFOUND|EAI_AGAIN|DNS resolution failed/i.test(this.details)) return 'its host name does not resolve';
    if (/EHOSTUNREACH|ENETUNREACH/.test(this.details)) return 'its host cannot be reached';
    if (/ECONNRESET/.test(this.details)) return 'the connection was reset';
    if (this.code === grpc.status.DEADLINE_EXCEEDED || /ETIMEDOUT/.test(this.details)) return 'no answer in time';
    return this.details.replace(/\s*Resolution note:\s*\)?\s*$/, '');
  }

  static from(address: string, error: grpc.ServiceError): PeerCallError {
    const trailers = error.metadata?.getMap() ?? {};
    const reason = trailers[REFUSAL_KEY];
    const facts: Record<string, string> = {};
    for (const [key, value] of Object.entries(trailers)) {
      if (key.startsWith(FACT_PREFIX) && typeof value === 'string') facts[key.slice(FACT_PREFIX.length)] = value;
    }
    return new PeerCallError(address, error.code, typeof reason === 'string' ? reason : null, error.details || error.message, facts);
  }
}

/** Channels made before a certificate reload are closed this long after it, so that calls on them can end. */
const RETIRED_CHANNEL_GRACE_MS = 60_000;

function credentialsOf(files: TlsFiles | null): grpc.ChannelCredentials {
  return files === null ? grpc.credentials.createInsecure() : grpc.credentials.createSsl(files.ca, files.key, files.cert);
}

export class PeerClients {
  private readonly clients = new Map<string, grpc.Client>();
  private readonly interceptors: grpc.Interceptor[] = [];
  private credentials: grpc.ChannelCredentials;
  private readonly retiring = new Set<NodeJS.Timeout>();
  private readonly stopWatchingTls: () => void;

  /**
   * @param reconnectBackoffMs the longest a channel waits before reconnecting to a peer that went
   * away: gRPC's default grows to two minutes, and a restarted peer must be seen within a heartbeat or so.
   */
  constructor(
    private readonly reconnectBackoffMs = 1000,
    /** Added to every call's metadata (the proof of cluster.secret, proof-sender.ts); observers come after it. */
    outgoing: grpc.Interceptor[] = [],
    tls: TlsMaterial | null = null,
  ) {
    this.interceptors.push(...outgoing);
    this.credentials = credentialsOf(tls?.files ?? null);
    this.stopWatchingTls = tls === null ? () => undefined : tls.onChange((files) => this.renewCredentials(files));
  }

  /** A reloaded certificate: later calls go over new channels; the old ones close after a grace period. */
  private renewCredentials(files: TlsFiles): void {
    this.credentials = credentialsOf(files);
    const old = [...this.clients.values()];
    this.clients.clear();
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      for (const client of old) client.close();
    }, RETIRED_CHANNEL_GRACE_MS);
    timer.unref();
    this.retiring.add(timer);
  }

  /** The one client to `address`; other services' calls on it share its connection. */
  client(address: string): grpc.Client {
    let client = this.clients.get(address);
    if (client === undefined) {
      client = new grpc.Client(address, this.credentials, {
        'grpc.initial_reconnect_backoff_ms': Math.min(this.reconnectBackoffMs, 1000),
        'grpc.max_reconnect_backoff_ms': this.reconnectBackoffMs,
        // Node-to-node traffic goes straight to the peer, never through an HTTP proxy set for the process.
        'grpc.enable_http_proxy': 0,
        interceptors: this.interceptors,
        'grpc.max_receive_message_length': GRPC_MAX_REPLY_BYTES,
        'grpc.max_send_message_length': GRPC_MAX_REQUEST_BYTES,
      });
      this.clients.set(address, client);
    }
    return client;
  }

  /** Reports every call of the clients made from now on (call before the first call) once it ends. */
  observe(observer: (call: FinishedCall) => void): void {
    if (this.clients.size > 0) throw new Error('observe calls before the first client is made');
    this.interceptors.push(callObserver(observer));
  }

  /** One unary call with a deadline `timeoutMs` from now. */
  call<Request, Reply>(
    address: string,
    method: grpc.MethodDefinition<Request, Reply>,
    request: Request,
    timeoutMs: number,
  ): Promise<Reply> {
    const client = this.client(address);
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        { deadline: Date.now() + timeoutMs },
        (error, reply) => {
          if (error !== null) reject(PeerCallError.from(address, error));
          else if (reply === undefined) reject(new PeerCallError(address, grpc.status.INTERNAL, null, 'empty reply'));
          else resolve(reply);
        },
      );
    });
  }

  /** Closes the client of a peer that left. */
  forget(address: string): void {
    this.clients.get(address)?.close();
    this.clients.delete(address);
  }

  close(): void {
    this.stopWatchingTls();
    for (const timer of this.retiring) clearTimeout(timer);
    this.retiring.clear();
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
