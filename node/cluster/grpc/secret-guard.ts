/**
 * The check of `cluster.secret` on every call this node serves, in one place: a server interceptor
 * that reads the call's proof (call-proof.ts) before the request is read or any handler runs, and
 * answers UNAUTHENTICATED with the reason in the `trawl-refusal` trailer otherwise. Each refusal is
 * counted; the log gets one line per peer address a minute, so a stranger that keeps calling does
 * not flood it.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../core/logger';
import { methodNames } from './call-observer';
import { checkProof, PROOF_KEY, type ProofFailure } from './call-proof';
import { REFUSAL_KEY } from './server';

export type SecretRefusalObserver = (service: string, method: string, reason: ProofFailure) => void;

/** Refusals from one address are logged at most this often. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Addresses remembered for that at most: past it, refusals from new addresses are only counted until a minute passed. */
const MAX_REMEMBERED = 1000;

/** `127.0.0.1:53211` -> `127.0.0.1`: each connection of a peer has its own port. */
function hostOf(peer: string): string {
  const colon = peer.lastIndexOf(':');
  return colon < 0 ? peer : peer.slice(0, colon);
}

export class SecretGuard {
  private readonly observers: SecretRefusalObserver[] = [];
  /** When refusals from each address were last logged. */
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Calls `observer` for every refusal from now on (the metrics). */
  observe(observer: SecretRefusalObserver): void {
    this.observers.push(observer);
  }

  /** The server interceptor (grpc.Server's `interceptors` option). */
  readonly interceptor: grpc.ServerInterceptor = (descriptor, call) => {
    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        const values = metadata.get(PROOF_KEY);
        // Sent twice is malformed: the joined text matches no proof.
        const proof = values.length === 0 ? undefined : values.map(String).join(',');
        const check = checkProof(this.secret, proof, descriptor.path, this.now());
        if (check.ok) return next(metadata);
        this.refused(descriptor.path, call.getPeer(), check.reason, check.message);
        const trailers = new grpc.Metadata();
        trailers.set(REFUSAL_KEY, check.reason);
        call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details: `refused: ${check.message}`, metadata: trailers });
      })
      .build();
    const responder = new grpc.ResponderBuilder().withStart((next) => next(listener)).build();
    return new grpc.ServerInterceptingCall(call, responder);
  };

  private refused(path: string, peer: string, reason: ProofFailure, message: string): void {
    const { service, method } = methodNames(path);
    for (const observer of this.observers) observer(service, method, reason);
    const host = hostOf(peer);
    const now = this.now();
    const last = this.lastLogged.get(host);
    if (last !== undefined && now - last < REFUSAL_LOG_INTERVAL_MS) return;
    if (last === undefined && this.lastLogged.size >= MAX_REMEMBERED) {
      for (const [known, at] of this.lastLogged) if (now - at >= REFUSAL_LOG_INTERVAL_MS) this.lastLogged.delete(known);
      if (this.lastLogged.size >= MAX_REMEMBERED) return;
    }
    this.lastLogged.set(host, now);
    this.logger.warn(
      `cluster: refused ${service}.${method} from ${peer} (${reason}): ${message}; further refusals from ${host} are logged at most once a minute`,
    );
  }
}
