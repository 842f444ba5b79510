/**
 * Every call this node makes to a peer, unary or streaming, reported once it ends: its service,
 * method, gRPC status and duration (the metrics of node-to-node traffic).
 */
import * as grpc from '@grpc/grpc-js';

export interface FinishedCall {
  /** `Membership`, `ShardWrite`, ... (the package left out). */
  service: string;
  method: string;
  code: grpc.status;
  seconds: number;
}

/** `/trawl.v1.ShardWrite/Write` -> ShardWrite, Write. */
export function methodNames(path: string): { service: string; method: string } {
  const [, qualified = '', method = ''] = path.split('/');
  return { service: qualified.slice(qualified.lastIndexOf('.') + 1), method };
}

/** A client interceptor that reports each call's end to `observer`. */
export function callObserver(observer: (call: FinishedCall) => void): grpc.Interceptor {
  return (options, nextCall) => {
    const { service, method } = methodNames(options.method_definition.path);
    const started = process.hrtime.bigint();
    return new grpc.InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            observer({ service, method, code: status.code, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
            nextStatus(status);
          },
        });
      },
    });
  };
}

/** How a call ended, for a metric label: ok, unreachable (no answer in time), cancelled, or refused (any other status). */
export function callOutcome(code: grpc.status): 'ok' | 'unreachable' | 'cancelled' | 'refused' {
  if (code === grpc.status.OK) return 'ok';
  if (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED) return 'unreachable';
  if (code === grpc.status.CANCELLED) return 'cancelled';
  return 'refused';
}
