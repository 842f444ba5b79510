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
import { RefusalLog } from './refusal-log';
import { REFUSAL_KEY } from './server';

export type SecretRefusalObserver = (service: string, method: string, reason: ProofFailure) => void;

export class SecretGuard {
  private readonly observers: SecretRefusalObserver[] = [];
  private readonly log: RefusalLog;

  constructor(
    private readonly secret: string,
    logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.log = new RefusalLog(logger, now);
  }

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
    this.log.refused(
      peer,
      (host) =>
        `cluster: refused ${service}.${method} from ${peer} (${reason}): ${message}; further refusals from ${host} are logged at most once a minute`,
    );
  }
}
