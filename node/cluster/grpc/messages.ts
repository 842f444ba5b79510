/**
 * The messages of proto/trawl.proto as proto-loader hands them over (grpc/proto.ts's options):
 * field names as in the file, 64-bit integers as numbers, absent messages as null. What is sent
 * may leave out any field; what is received has them all (defaults).
 */

export interface ProtocolVersion {
  major: number;
  minor: number;
}

export interface Member {
  id: string;
  http: string;
  grpc: string;
  role: string;
}

export interface RingEpoch {
  epoch: number;
  from_micros: number;
  members: string[];
  /** '' (or absent, from an older sender): the consistent-hash ring. */
  layout?: string;
}

export interface ClusterState {
  version: number;
  members: Member[];
  epochs: RingEpoch[];
  removed: string[];
  /** Empty (or, from an older sender, absent) once the cluster has formed. */
  forming: string[];
  /** Since 1.4; absent from an older sender. */
  stored_alone?: StoredAlone[];
  /** Since 1.5; absent from an older sender. */
  forgotten?: ForgottenNode[];
}

export interface ForgottenNode {
  id: string;
  through_epoch: number;
  stored_alone: boolean;
}

export interface StoredAlone {
  node: string;
  partition: number;
  indexes: string[];
  from_micros: number;
  to_micros: number;
}

export interface Payload {
  version: number;
  data: Buffer;
}

export interface NodeStats {
  node_id: string;
  events: number;
  segments: number;
  buffered_events: number;
  buffered_bytes: number;
  storage_bytes: number;
  indexes: string[];
  /** Since 1.5; 0 when none. */
  newest_event_micros?: number;
}

export interface JoinRequest {
  protocol_version: ProtocolVersion | null;
  node: Member | null;
  /** Since 1.4: what the joining node stored alone before; null when nothing. */
  stored_alone?: StoredAlone | null;
}

export interface JoinReply {
  protocol_version: ProtocolVersion | null;
  state: ClusterState | null;
  payload: Payload | null;
}

export interface HeartbeatRequest {
  protocol_version: ProtocolVersion | null;
  from: Member | null;
  state_version: number;
  payload_version: number;
  /** Since 1.1: node ids the sender holds hints for. */
  hints_for: string[];
}

export interface HeartbeatReply {
  protocol_version: ProtocolVersion | null;
  node_id: string;
  state_version: number;
  payload_version: number;
  stats: NodeStats | null;
}

export interface PullStateRequest {
  protocol_version: ProtocolVersion | null;
  from: string;
}

export interface PullStateReply {
  protocol_version: ProtocolVersion | null;
  state: ClusterState | null;
  payload: Payload | null;
}

export interface PushStateRequest {
  protocol_version: ProtocolVersion | null;
  from: string;
  state: ClusterState | null;
  payload: Payload | null;
}

export interface PushStateReply {
  protocol_version: ProtocolVersion | null;
  state_version: number;
  payload_version: number;
}

export interface StatsRequest {
  protocol_version: ProtocolVersion | null;
}

export interface StatsReply {
  protocol_version: ProtocolVersion | null;
  stats: NodeStats | null;
}

export interface ApplyRequest {
  protocol_version: ProtocolVersion | null;
  write_json: string;
}

export interface ApplyReply {
  protocol_version: ProtocolVersion | null;
  version: number;
  record_json: string;
}

export interface WriteRequest {
  protocol_version: ProtocolVersion | null;
  origin: string;
  record: Buffer;
  share_id: string;
  share_floor_ms: number;
}

export interface WriteReply {
  protocol_version: ProtocolVersion | null;
  events: number;
}

export interface ReplayHintRequest {
  protocol_version: ProtocolVersion | null;
  origin: string;
  hint_log: string;
  seq: number;
  record: Buffer;
  share_id: string;
  share_floor_ms: number;
}

export interface ReplayHintReply {
  protocol_version: ProtocolVersion | null;
  applied: boolean;
  events: number;
}

export interface ShardKeysRequest {
  protocol_version: ProtocolVersion | null;
  index_patterns: string[];
  from_micros: number;
  to_micros: number;
}

export interface ShardKeysReply {
  protocol_version: ProtocolVersion | null;
  keys: string[];
}

export interface ShardCatalogRequest {
  protocol_version: ProtocolVersion | null;
  keys: string[];
  from_micros: number;
  to_micros: number;
  prefix: string;
  source: string;
}

export interface ShardCatalogReply {
  protocol_version: ProtocolVersion | null;
  part: Buffer;
}

export interface ShardQueryRequest {
  protocol_version: ProtocolVersion | null;
  text: string;
  variables_json: string;
  from_micros: number;
  to_micros: number;
  now_micros: number;
  limit: number;
  offset: number;
  profile: boolean;
  trace: boolean;
  stream: boolean;
  keys: readonly string[];
  fragment_id: string;
  head_floor: HeadFloor | null;
  newest_share: number;
  /** (1.11) More keys, as runs (key-runs.ts); absent from an older sender. */
  key_runs?: KeyRun[];
  /** (1.12) The index names the coordinator resolved the query's globs to; absent or null: none resolved. */
  listed_indexes?: IndexNames | null;
}

/** (1.12) Index names, sorted. */
export interface IndexNames {
  names: string[];
}

/** (1.11) Every key `index|bucket|partition` of one index with one of the buckets and one of the partitions. */
export interface KeyRun {
  index: string;
  buckets: number[];
  partitions: number[];
}

export interface HeadFloor {
  time: number;
}

export interface RaiseFloorRequest {
  protocol_version: ProtocolVersion | null;
  fragment_id: string;
  time: number;
}

export interface RaiseFloorReply {
  protocol_version: ProtocolVersion | null;
  running: boolean;
}

export interface ShardQueryProgress {
  rows_read: number;
  bytes_read: number;
  units_total: number;
  units_done: number;
  segments_total: number;
  segments_scanned: number;
  segments_skipped_index: number;
  segments_skipped_time: number;
  segments_skipped_stats: number;
  segments_skipped_bloom: number;
  blocks_skipped_range: number;
  buffered_events: number;
  blocks_cached: number;
  blocks_skipped_bloom: number;
}

export interface ShardQueryRows {
  rows: Buffer;
  bound: number;
}

/** One message of the Query stream: `body` names the member that is set. */
export interface ShardQueryMessage {
  protocol_version: ProtocolVersion | null;
  body?: 'progress' | 'rows' | 'result' | 'head_floor';
  progress?: ShardQueryProgress | null;
  rows?: ShardQueryRows | null;
  result?: Buffer;
  head_floor?: HeadFloor | null;
  /** (1.7) Beside `result`: the callee's last counters, instead of a `progress` message before it. */
  final_progress?: ShardQueryProgress | null;
}

/** (1.9) A frame of the Fragments call from the caller: `body` names the member that is set. */
export interface FragmentFrame {
  protocol_version: ProtocolVersion | null;
  id: number;
  body?: 'start' | 'cancel';
  start?: ShardQueryRequest | null;
  cancel?: boolean;
  timeout_ms: number;
}

/** (1.9) A fragment that ended without a result. */
export interface FragmentFailure {
  code: number;
  details: string;
  reason: string;
  facts: Record<string, string>;
}

/** (1.9) A reply on the Fragments call: `body` names the member that is set. */
export interface FragmentReply {
  protocol_version: ProtocolVersion | null;
  id: number;
  body?: 'message' | 'failure';
  message?: ShardQueryMessage | null;
  failure?: FragmentFailure | null;
}

export interface TailSubscribeRequest {
  protocol_version: ProtocolVersion | null;
  text: string;
  now_micros: number;
}

export interface TailEvents {
  protocol_version: ProtocolVersion | null;
  rows: Buffer;
  dropped: number;
  error: string;
}
