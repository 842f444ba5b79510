/**
 * proto/trawl.proto loaded once with @grpc/proto-loader, and its methods typed by their messages.
 *
 * Options: keepCase (field names as the .proto writes them, so messages read like the file);
 * longs as Numbers, because every 64-bit value we send (microsecond times, counts, versions) is a JS
 * number already and stays below 2^53 (microseconds reach it in the year 2255), so strings would only
 * add conversions; defaults, so a field an older peer does not send reads as its zero value (the
 * versioning rule relies on it) and an absent message reads as null.
 */
import fs from 'fs';
import path from 'path';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import type * as wire from './messages';
import { tolerantDecoder } from './undecodable';

function findProtoFile(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'proto', 'trawl.proto');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`proto/trawl.proto not found above ${start}`);
  }
}

export const PROTO_FILE = findProtoFile(__dirname);

export const LOADER_OPTIONS = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true } as const;

const definition = loadSync(PROTO_FILE, LOADER_OPTIONS);

/** The service's methods, each decoding a request that is no message of its type to an UndecodableRequest (undecodable.ts) rather than throwing. */
function service(name: string): ServiceDefinition {
  const found = definition[`trawl.v1.${name}`];
  // A message type carries its `format`; a service is a map of methods.
  if (found === undefined || 'format' in found) throw new Error(`service trawl.v1.${name} is not in ${PROTO_FILE}`);
  const methods = Object.entries(found as ServiceDefinition).map(([method, each]) => [
    method,
    { ...each, requestDeserialize: tolerantDecoder(each.requestDeserialize) },
  ]);
  return Object.fromEntries(methods) as ServiceDefinition;
}

function method<Request, Reply>(service: ServiceDefinition, name: string): MethodDefinition<Request, Reply> {
  const found = service[name];
  if (found === undefined) throw new Error(`method ${name} is not in ${PROTO_FILE}`);
  return found as MethodDefinition<Request, Reply>;
}

export const MEMBERSHIP_SERVICE = service('Membership');
export const NODE_INFO_SERVICE = service('NodeInfo');

export const MEMBERSHIP = {
  Join: method<wire.JoinRequest, wire.JoinReply>(MEMBERSHIP_SERVICE, 'Join'),
  Heartbeat: method<wire.HeartbeatRequest, wire.HeartbeatReply>(MEMBERSHIP_SERVICE, 'Heartbeat'),
  PullState: method<wire.PullStateRequest, wire.PullStateReply>(MEMBERSHIP_SERVICE, 'PullState'),
  PushState: method<wire.PushStateRequest, wire.PushStateReply>(MEMBERSHIP_SERVICE, 'PushState'),
};

export const NODE_INFO = {
  Stats: method<wire.StatsRequest, wire.StatsReply>(NODE_INFO_SERVICE, 'Stats'),
};

export const METADATA_SERVICE = service('Metadata');

export const METADATA = {
  Apply: method<wire.ApplyRequest, wire.ApplyReply>(METADATA_SERVICE, 'Apply'),
};

export const SHARD_WRITE_SERVICE = service('ShardWrite');

export const SHARD_WRITE = {
  Write: method<wire.WriteRequest, wire.WriteReply>(SHARD_WRITE_SERVICE, 'Write'),
  ReplayHint: method<wire.ReplayHintRequest, wire.ReplayHintReply>(SHARD_WRITE_SERVICE, 'ReplayHint'),
};

export const SHARD_QUERY_SERVICE = service('ShardQuery');

export const SHARD_QUERY = {
  Keys: method<wire.ShardKeysRequest, wire.ShardKeysReply>(SHARD_QUERY_SERVICE, 'Keys'),
  Query: method<wire.ShardQueryRequest, wire.ShardQueryMessage>(SHARD_QUERY_SERVICE, 'Query'),
  RaiseFloor: method<wire.RaiseFloorRequest, wire.RaiseFloorReply>(SHARD_QUERY_SERVICE, 'RaiseFloor'),
  Catalog: method<wire.ShardCatalogRequest, wire.ShardCatalogReply>(SHARD_QUERY_SERVICE, 'Catalog'),
  Fragments: method<wire.FragmentFrame, wire.FragmentReply>(SHARD_QUERY_SERVICE, 'Fragments'),
};

export const TAIL_SERVICE = service('Tail');

export const TAIL = {
  Subscribe: method<wire.TailSubscribeRequest, wire.TailEvents>(TAIL_SERVICE, 'Subscribe'),
};
