/** The client side of `cluster.secret`: every call this node makes to a peer carries a fresh proof (call-proof.ts). */
import * as grpc from '@grpc/grpc-js';
import { PROOF_KEY, signProof } from './call-proof';

/** A client interceptor that adds the proof of `secret` as `nodeId` to each call's metadata. */
export function proofSender(secret: string, nodeId: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(PROOF_KEY, signProof(secret, nodeId, options.method_definition.path));
        next(metadata, listener);
      },
    });
}
