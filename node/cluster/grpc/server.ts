/**
 * The node's gRPC server: every service between nodes (membership's and the data path's) is added
 * to this one server before it listens. A handler is an async function; what it throws becomes a
 * gRPC status, and an RpcRefusal also names its reason (and facts) in the trailers, so the calling
 * node can tell one refusal from another without parsing the message.
 *
 * The server accepts connections on its own socket and hands each to grpc-js only once the peer
 * sent the HTTP/2 client preface: grpc-js keeps a connection that never sends one open without
 * limit, so anyone could hold sockets and memory on the port.
 *
 * With `tls.enabled` the port is TLS: the handshake comes first (bounded by the same timeout) and
 * grpc-js gets the decrypted connection; each handshake takes the certificate of the moment, so a
 * SIGHUP reload applies to the next connection. With `tls.ca_file` the peer must present a
 * certificate that CA signed (mutual TLS); a failed handshake is reported to `onTlsRefused`.
 */
import net from 'net';
import tls from 'tls';
import * as grpc from '@grpc/grpc-js';
import type { TlsFiles, TlsMaterial } from '../../core/tls-material';
import { GRPC_MAX_REPLY_BYTES, GRPC_MAX_REQUEST_BYTES } from './limits';
import { trailerKey, trailerValue } from './trailer-values';

export const REFUSAL_KEY = 'trawl-refusal';
/** Trailer keys of a refusal's facts start with this (`trawl-fact-held-at`). */
export const FACT_PREFIX = 'trawl-fact-';

/** A request the callee will not serve, with a gRPC status, a machine-readable reason and a message for people. */
export class RpcRefusal extends Error {
  constructor(
    readonly code: grpc.status,
    readonly reason: string,
    message: string,
    /** What the caller may need besides the reason (the address that holds a node id). */
    readonly facts: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'RpcRefusal';
  }
}

/**
 * A refusal's reason and facts as trailers, each key and value made one grpc-js takes
 * (trailer-values.ts): one it refuses would throw and leave the call unanswered.
 */
export function refusalTrailers(refusal: RpcRefusal): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set(REFUSAL_KEY, trailerValue(refusal.reason));
  for (const [key, value] of Object.entries(refusal.facts)) metadata.set(trailerKey(FACT_PREFIX + key), trailerValue(value));
  return metadata;
}

/**
 * Writes `message` on a server stream; resolves once the stream takes more (at once unless its
 * buffer is full), or when `gone` aborts. Nothing is written once `gone` has aborted.
 */
export function writeWhenReady<Message>(
  stream: {
    write(message: Message): boolean;
    once(event: 'drain', listener: () => void): unknown;
    off(event: 'drain', listener: () => void): unknown;
  },
  message: Message,
  gone: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    if (gone.aborted || stream.write(message)) return resolve();
    const drained = (): void => {
      stream.off('drain', drained);
      gone.removeEventListener('abort', drained);
      resolve();
    };
    stream.once('drain', drained);
    gone.addEventListener('abort', drained, { once: true });
  });
}

/** Ends a server stream with a status, the refusal's reason and facts in the trailers (as unary() does). */
export function endWith(call: Pick<grpc.ServerWritableStream<unknown, unknown>, 'emit'>, refusal: RpcRefusal): void {
  call.emit('error', { code: refusal.code, details: refusal.message, metadata: refusalTrailers(refusal) });
}

/**
 * Adapts an async handler; an error that is not a refusal is INTERNAL and goes to `onFailure` (the
 * log). The caller is told only that the call failed here and the error's first line: a stack, or
 * anything else past that line, stays in this node's log.
 */
export function unary<Request, Reply>(
  handler: (request: Request) => Promise<Reply>,
  onFailure: (error: Error) => void,
): grpc.handleUnaryCall<Request, Reply> {
  return (call, callback) => {
    Promise.resolve(call.request)
      .then(handler)
      .then(
        (reply) => callback(null, reply),
        (error: unknown) => {
          if (error instanceof RpcRefusal) {
            callback({ code: error.code, details: error.message, metadata: refusalTrailers(error) });
          } else {
            const failure = error instanceof Error ? error : new Error(String(error));
            onFailure(failure);
            callback({ code: grpc.status.INTERNAL, details: internalDetails(failure) });
          }
        },
      );
  };
}

/** `address:port` of the other end of a connection, for the log. */
function peerOf(socket: net.Socket): string {
  return `${socket.remoteAddress ?? 'unknown'}:${socket.remotePort ?? 0}`;
}

/** A failed handshake in words: OpenSSL's message names its source file, and plain text on the port reads as a wrong version. */
function handshakeFailure(error: Error & { code?: string }): string {
  if (/WRONG_VERSION_NUMBER|HTTP_REQUEST/.test(error.code ?? '')) return 'it does not speak TLS (is tls.enabled set on every node?)';
  const reason = /:SSL routines:[^:]*:([^:]+):/.exec(error.message)?.[1];
  return reason ?? error.message.split('\n', 1)[0] ?? error.message;
}

/** What an HTTP/2 client sends first on a connection (RFC 9113, section 3.4). */
const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** How long a new connection may take to send the whole preface before it is closed. */
export const DEFAULT_PREFACE_TIMEOUT_MS = 5_000;

/** `host:port` or `[v6]:port` as net.Server.listen takes it. */
function hostAndPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`cannot listen for gRPC on ${address}: expected HOST:PORT`);
  return { host, port };
}

/** What a peer is told of an unexpected failure: the first line of its message, at most 200 characters (never a stack or a dump). */
export function internalDetails(error: Error): string {
  const line = error.message.split('\n', 1)[0] ?? '';
  return `the call failed on this node (its log has the details): ${line.length > 200 ? `${line.slice(0, 200)}...` : line}`;
}

export interface GrpcServerOptions {
  prefaceTimeoutMs?: number;
  /** Run on every call of every service before its handler (the check of cluster.secret, secret-guard.ts). */
  interceptors?: grpc.ServerInterceptor[];
  /** The node's certificate when `tls.enabled`: connections are TLS, and mutual with a CA. */
  tls?: TlsMaterial | null;
  /** A connection that failed its TLS handshake (not TLS, no certificate, one the CA did not sign): the peer's address and why. */
  onTlsRefused?: (peer: string, reason: string) => void;
}

export class GrpcServer {
  private readonly server: grpc.Server;
  private listener: net.Server | null = null;
  /** Connections that have not sent the whole preface yet. */
  private readonly awaitingPreface = new Set<net.Socket>();
  private listening = false;
  /** Run as close() begins (onClose). */
  private readonly closing: (() => void)[] = [];
  private readonly prefaceTimeoutMs: number;
  private readonly tls: TlsMaterial | null;
  private readonly onTlsRefused: (peer: string, reason: string) => void;

  constructor(options: GrpcServerOptions = {}) {
    this.prefaceTimeoutMs = options.prefaceTimeoutMs ?? DEFAULT_PREFACE_TIMEOUT_MS;
    this.tls = options.tls ?? null;
    this.onTlsRefused = options.onTlsRefused ?? (() => undefined);
    this.server = new grpc.Server({
      'grpc.max_receive_message_length': GRPC_MAX_REQUEST_BYTES,
      'grpc.max_send_message_length': GRPC_MAX_REPLY_BYTES,
      // Channelz stays on: with it off, grpc-js's forceShutdown does not destroy open sessions,
      // so close() would leave a stream a stopped node was serving open until its deadline.
      interceptors: options.interceptors ?? [],
    });
  }

  /** Adds a service; all are added before listen(). */
  addService(service: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    if (this.listening) throw new Error('services are added before the gRPC server listens');
    this.server.addService(service, implementation);
  }

  /** Binds `address` (host:port, port 0 for any); resolves with the bound port. */
  listen(address: string): Promise<number> {
    const { host, port } = hostAndPort(address);
    const injector = this.server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    const listener =
      this.tls === null
        ? net.createServer({ noDelay: true }, (socket) => this.admit(socket, injector))
        : this.tlsListener(this.tls, injector);
    return new Promise((resolve, reject) => {
      listener.once('error', (error) => {
        injector.destroy();
        reject(new Error(`cannot listen for gRPC on ${address}: ${error.message}`));
      });
      listener.listen({ host, port }, () => {
        // An accept that fails (out of file descriptors) loses that connection only; the peer retries.
        listener.on('error', () => undefined);
        this.listener = listener;
        this.listening = true;
        resolve((listener.address() as net.AddressInfo).port);
      });
    });
  }

  /** Reads the client preface (after the TLS handshake, with TLS) under a timer, then gives grpc-js the connection with the bytes read put back. */
  private admit(socket: net.Socket, injector: grpc.ConnectionInjector): void {
    this.awaitingPreface.add(socket);
    let received = Buffer.alloc(0);
    const refuse = (): void => {
      this.awaitingPreface.delete(socket);
      socket.destroy();
    };
    const timer = setTimeout(refuse, this.prefaceTimeoutMs);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const length = Math.min(received.length, CLIENT_PREFACE.length);
      if (!received.subarray(0, length).equals(CLIENT_PREFACE.subarray(0, length))) {
        clearTimeout(timer);
        return refuse();
      }
      if (received.length < CLIENT_PREFACE.length) return;
      clearTimeout(timer);
      this.awaitingPreface.delete(socket);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.pause();
      socket.unshift(received);
      injector.injectConnection(socket);
    };
    const onError = (): void => {
      clearTimeout(timer);
      refuse();
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.once('close', () => {
      clearTimeout(timer);
      this.awaitingPreface.delete(socket);
    });
  }

  /**
   * The listener of a TLS port: the handshake is bounded like the preface; the client's certificate
   * is checked here (not by the TLS layer, so that the refusal can say why); a reload applies to
   * the next handshake.
   */
  private tlsListener(material: TlsMaterial, injector: grpc.ConnectionInjector): net.Server {
    const contextOptions = (files: TlsFiles): tls.SecureContextOptions & { requestCert: boolean } => ({
      cert: files.cert,
      key: files.key,
      ...(files.ca === null ? {} : { ca: files.ca }),
      requestCert: files.ca !== null,
    });
    const listener = tls.createServer(
      {
        ...contextOptions(material.files),
        rejectUnauthorized: false,
        ALPNProtocols: ['h2'],
        handshakeTimeout: this.prefaceTimeoutMs,
        noDelay: true,
      },
      (socket) => {
        if (material.mutual && !socket.authorized) {
          const presented = Object.keys(socket.getPeerCertificate()).length > 0;
          this.onTlsRefused(
            peerOf(socket),
            presented ? `tls.ca_file did not verify its certificate (${String(socket.authorizationError)})` : 'it presented no certificate',
          );
          socket.destroy();
          return;
        }
        this.admit(socket, injector);
      },
    );
    listener.on('tlsClientError', (error: Error & { code?: string }, socket: tls.TLSSocket) =>
      this.onTlsRefused(peerOf(socket), handshakeFailure(error)),
    );
    const stop = material.onChange((files) => {
      const options = contextOptions(files);
      listener.setSecureContext(options);
      // Read by each new handshake: a CA added by the reload asks the next peers for certificates.
      (listener as tls.Server & { requestCert: boolean }).requestCert = options.requestCert;
    });
    listener.once('close', stop);
    return listener;
  }

  /**
   * Runs `hook` as close() begins: a service whose calls stay open (ShardQuery.Fragments) ends them
   * once their work is answered, instead of holding the shutdown to its grace.
   */
  onClose(hook: () => void): void {
    this.closing.push(hook);
  }

  /** Lets calls in flight finish for up to `graceMs`, then cuts the rest. */
  close(graceMs: number): Promise<void> {
    for (const hook of this.closing.splice(0)) hook();
    this.listener?.close();
    for (const socket of this.awaitingPreface) socket.destroy();
    this.awaitingPreface.clear();
    return new Promise((resolve) => {
      const force = setTimeout(() => this.server.forceShutdown(), graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }
}
