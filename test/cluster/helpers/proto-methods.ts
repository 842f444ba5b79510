/** Every method of every service in proto/trawl.proto, as a stranger with the file would see them (@grpc/proto-loader). */
import type * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { LOADER_OPTIONS, PROTO_FILE } from '../../../node/cluster/grpc/proto';

export interface ProtoMethod {
  service: string;
  name: string;
  definition: grpc.MethodDefinition<unknown, unknown>;
}

/** The proto as proto-loader loads it: services, and message types with their descriptors. */
export const LOADED_PROTO = loadSync(PROTO_FILE, LOADER_OPTIONS);

export function protoMethods(): ProtoMethod[] {
  const methods: ProtoMethod[] = [];
  for (const [qualified, entry] of Object.entries(LOADED_PROTO)) {
    // A message type carries its `format`; a service is a map of methods.
    if ('format' in entry) continue;
    for (const [name, definition] of Object.entries(entry as grpc.ServiceDefinition)) {
      methods.push({ service: qualified.slice(qualified.lastIndexOf('.') + 1), name, definition });
    }
  }
  return methods;
}
