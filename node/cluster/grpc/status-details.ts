/**
 * The text of every status this node's gRPC server sends, made well-formed. grpc-js percent-encodes
 * it with encodeURI, which throws on a lone surrogate (half of a UTF-16 pair, as a refusal that
 * quotes a peer's text or a JSON parser's message may hold): the call was then never answered and
 * its caller waited out its deadline. A lone surrogate becomes U+FFFD, as a UTF-8 decoder shows it.
 */
import * as grpc from '@grpc/grpc-js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with each lone surrogate replaced by U+FFFD. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** The server interceptor (grpc.Server's `interceptors` option, first, so it sees the statuses the others send). */
export const wellFormedDetails: grpc.ServerInterceptor = (_descriptor, call) => {
  const responder = new grpc.ResponderBuilder()
    .withSendStatus((status, next) => next({ ...status, details: wellFormed(status.details) }))
    .build();
  return new grpc.ServerInterceptingCall(call, responder);
};
