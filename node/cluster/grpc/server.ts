/**
 * The node's gRPC server: every service between nodes (membership's and the data path's) is added
 * to this one server before it listens. A handler is an async function; what it throws becomes a
 * gRPC status, and an RpcRefusal also names its reason (and facts) in the trailers, so the calling
 * node can tell one refusal from another without parsing the message.
 */
import * as grpc from '@grpc/grpc-js';

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
 * Adapts an async handler; an error that is not a refusal is INTERNAL and goes to `onFailure` (the
 * log). The caller is told only that the call failed here and the error's first line: a stack, or
 * anything else past that line, stays in this node's log.
 */
export function unary<Request, Reply>(
  handler: (request: Request) => Promise<Reply>,
  onFailure: (error: Error) => void,
): grpc.handleUnaryCall<Request, Reply> {
  return (call, callback) => {
    Promise.resolve(call.request).then(handler).then(
      (reply) => callback(null, reply),
      (error: unknown) => {
        if (error instanceof RpcRefusal) {
          const metadata = new grpc.Metadata();
          metadata.set(REFUSAL_KEY, error.reason);
          for (const [key, value] of Object.entries(error.facts)) metadata.set(FACT_PREFIX + key, value);
          callback({ code: error.code, details: error.message, metadata });
        } else {
          const failure = error instanceof Error ? error : new Error(String(error));
          onFailure(failure);
          callback({ code: grpc.status.INTERNAL, details: internalDetails(failure) });
        }
      },
    );
  };
}

/** What a peer is told of an unexpected failure: the first line of its message, at most 200 characters (never a stack or a dump). */
export function internalDetails(error: Error): string {
  const line = error.message.split('\n', 1)[0] ?? '';
  return `the call failed on this node (its log has the details): ${line.length > 200 ? `${line.slice(0, 200)}...` : line}`;
}

export class GrpcServer {
  private readonly server = new grpc.Server();
  private listening = false;

  /** Adds a service; all are added before listen(). */
  addService(service: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    if (this.listening) throw new Error('services are added before the gRPC server listens');
    this.server.addService(service, implementation);
  }

  /** Binds `address` (host:port, port 0 for any) without TLS; resolves with the bound port. */
  listen(address: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => {
        if (error !== null) return reject(new Error(`cannot listen for gRPC on ${address}: ${error.message}`));
        this.listening = true;
        resolve(port);
      });
    });
  }

  /** Lets calls in flight finish for up to `graceMs`, then cuts the rest. */
  close(graceMs: number): Promise<void> {
    return new Promise((resolve) => {
      const force = setTimeout(() => this.server.forceShutdown(), graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }
}
