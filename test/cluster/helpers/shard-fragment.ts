/** A ShardQuery.Query request as a coordinator sends it, for tests that call a node's gRPC port themselves. */
import type * as wire from '../../../node/cluster/grpc/messages';
import { protocolVersion } from '../../../node/cluster/grpc/wire';

/** A fragment of `text` over `[fromMs, toMs)`, asked now, with every other field at a coordinator's default; `overrides` last. */
export function shardFragment(
  text: string,
  fromMs: number,
  toMs: number,
  overrides: Partial<wire.ShardQueryRequest> = {},
): wire.ShardQueryRequest {
  return {
    protocol_version: protocolVersion(),
    text,
    variables_json: '{}',
    from_micros: fromMs * 1000,
    to_micros: toMs * 1000,
    now_micros: Date.now() * 1000,
    limit: 100,
    offset: 0,
    profile: false,
    trace: false,
    stream: false,
    keys: [],
    fragment_id: '',
    head_floor: null,
    newest_share: 0,
    ...overrides,
  };
}
