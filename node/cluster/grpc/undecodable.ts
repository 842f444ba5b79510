/**
 * Requests whose bytes do not decode as their message type. grpc-js answers a decoder's exception
 * with INTERNAL ("Error deserializing request"), which tells the peer nothing and reads as a bug of
 * this node. The services' decoders return an UndecodableRequest instead (tolerantDecoder, used by
 * proto.ts), and undecodableGuard refuses such a call INVALID_ARGUMENT with the reason
 * `undecodable-message` before any handler runs, as a peer's bad message is refused elsewhere.
 */
import * as grpc from '@grpc/grpc-js';
import { REFUSAL_KEY } from './server';

export const UNDECODABLE_REFUSAL = 'undecodable-message';

export class UndecodableRequest {
  constructor(readonly problem: string) {}
}

/** `decode`, returning an UndecodableRequest where it would throw. */
export function tolerantDecoder<Message>(decode: (bytes: Buffer) => Message): (bytes: Buffer) => Message | UndecodableRequest {
  return (bytes) => {
    try {
      return decode(bytes);
    } catch (error) {
      return new UndecodableRequest(error instanceof Error ? error.message : String(error));
    }
  };
}

/** The server interceptor (grpc.Server's `interceptors` option) that refuses a request that did not decode. */
export const undecodableGuard: grpc.ServerInterceptor = (descriptor, call) => {
  const listener = new grpc.ServerListenerBuilder()
    .withOnReceiveMessage((message, next) => {
      if (!(message instanceof UndecodableRequest)) return next(message);
      const trailers = new grpc.Metadata();
      trailers.set(REFUSAL_KEY, UNDECODABLE_REFUSAL);
      call.sendStatus({
        code: grpc.status.INVALID_ARGUMENT,
        details: `the request to ${descriptor.path} is not a message of its type: ${message.problem.slice(0, 200)}`,
        metadata: trailers,
      });
    })
    .build();
  const responder = new grpc.ResponderBuilder().withStart((next) => next(listener)).build();
  return new grpc.ServerInterceptingCall(call, responder);
};
