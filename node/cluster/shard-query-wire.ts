/** Between a query fragment, its progress and proto/trawl.proto's ShardQuery messages. */
import type { ShardFragment } from '../../coordinator/scatter-gather';
import type { ShardCounters } from '../../coordinator/shard-progress';
import { isStoredIndexName } from '../../storage/core/event';
import type * as wire from './grpc/messages';
import { protocolVersion } from './grpc/wire';
import { KeptByAge } from './kept-by-age';
import { keysFromRuns, keysToRuns } from './key-runs';

/** How the caller addresses one run of a fragment: the id RaiseFloor names, and the head floor it starts with. */
export interface FragmentRun {
  fragmentId: string;
  headFloor: number;
}

/**
 * Each key list's runs, made once: a coordinator sends the same lists query after query while its
 * assignment is kept (node/cluster/placement-memo.ts).
 */
const runsOfLists = new WeakMap<readonly string[], wire.KeyRun[]>();

function runsOf(keys: readonly string[]): wire.KeyRun[] {
  let runs = runsOfLists.get(keys);
  if (runs === undefined) runsOfLists.set(keys, (runs = keysToRuns(keys)));
  return runs;
}

/** `keyRuns`: the callee reads keys as runs (protocol.ts KEY_RUNS_MINOR), which is how they are then sent. */
export function fragmentToWire(
  fragment: ShardFragment,
  run: FragmentRun = { fragmentId: '', headFloor: -Infinity },
  keyRuns = false,
): wire.ShardQueryRequest {
  const { spec } = fragment;
  return {
    protocol_version: protocolVersion(),
    text: spec.text,
    variables_json: JSON.stringify(spec.variables),
    from_micros: spec.fromMicros,
    to_micros: spec.toMicros,
    now_micros: spec.nowMicros,
    limit: spec.limit,
    offset: spec.offset,
    profile: spec.profile,
    trace: spec.trace,
    stream: spec.stream,
    keys: keyRuns ? [] : fragment.keys,
    ...(keyRuns ? { key_runs: runsOf(fragment.keys) } : {}),
    fragment_id: run.fragmentId,
    head_floor: run.headFloor === -Infinity ? null : { time: run.headFloor },
    newest_share: spec.newestShare ?? 0,
    listed_indexes: fragment.indexes === undefined ? null : { names: [...fragment.indexes] },
  };
}

/** The longest query text (and `$variables` JSON) a fragment may carry, in characters. */
export const MAX_FRAGMENT_TEXT = 256 * 1024;

/** The most partition keys one fragment may name (a coordinator sends each node its share of a query's keys). */
export const MAX_FRAGMENT_KEYS = 1_000_000;

/** The most index names a fragment may list (`listed_indexes`). */
export const MAX_LISTED_INDEXES = 65_536;

/** A fragment's listed index names, checked like the names of its keys. */
function listedFromWire(listed: wire.IndexNames | null | undefined): readonly string[] | undefined {
  if (listed === null || listed === undefined) return undefined;
  if (listed.names.length > MAX_LISTED_INDEXES)
    throw new Error(`listed_indexes names ${listed.names.length} indexes, more than ${MAX_LISTED_INDEXES}`);
  for (const name of listed.names) {
    if (!isStoredIndexName(name)) throw new Error(`listed_indexes holds ${JSON.stringify(name.slice(0, 200))}, which is not an index name`);
  }
  return listed.names;
}

/** A key as storage/core/partition.ts keyString writes it: `index|bucket|partition`. */
const KEY_PATTERN = /^([^|]{1,128})\|(-?\d{1,16})\|(-?\d{1,10})$/;

function checkKey(key: string): void {
  const match = KEY_PATTERN.exec(key);
  if (match === null || !isStoredIndexName(match[1]!))
    throw new Error(`key ${JSON.stringify(key.slice(0, 200))} is not index|bucket|partition`);
}

/** Key run lists kept, and the keys they hold in all. */
const MAX_KEPT_RUN_LISTS = 64;
const MAX_KEPT_RUN_KEYS = 262_144;

/**
 * The keys of each run list, made and checked once: a coordinator sends a node the same runs
 * query after query while it keeps its assignment, and the keys' set is made once per kept list
 * (coordinator/key-sets.ts). Runs are kept by their exact content, so a list that differs in
 * anything is checked anew.
 */
const keysOfRunLists = new KeptByAge<readonly string[]>(MAX_KEPT_RUN_LISTS, MAX_KEPT_RUN_KEYS, (keys) => keys.length);

function keysOfRuns(runs: readonly wire.KeyRun[]): readonly string[] {
  const content = JSON.stringify(runs.map((run) => [run.index, run.buckets, run.partitions]));
  let keys = keysOfRunLists.get(content);
  if (keys === undefined) {
    keys = Object.freeze(keysFromRuns(runs, MAX_FRAGMENT_KEYS));
    keysOfRunLists.set(content, keys);
  }
  return keys;
}

/** Throws naming what is wrong. */
export function fragmentFromWire(request: wire.ShardQueryRequest): ShardFragment & FragmentRun {
  if (request.text.trim() === '') throw new Error('the query text is empty');
  if (request.text.length > MAX_FRAGMENT_TEXT) throw new Error(`the query text is longer than ${MAX_FRAGMENT_TEXT} characters`);
  if (request.variables_json.length > MAX_FRAGMENT_TEXT) throw new Error(`variables_json is longer than ${MAX_FRAGMENT_TEXT} characters`);
  const variables: unknown = JSON.parse(request.variables_json === '' ? '{}' : request.variables_json);
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables))
    throw new Error('variables_json is not a JSON object');
  for (const [name, value] of Object.entries({
    from_micros: request.from_micros,
    to_micros: request.to_micros,
    now_micros: request.now_micros,
    limit: request.limit,
    offset: request.offset,
  })) {
    if (!Number.isSafeInteger(value)) throw new Error(`${name} is not a whole number: ${value}`);
  }
  if (request.limit < 0 || request.offset < 0)
    throw new Error(`limit and offset must not be negative: ${request.limit}, ${request.offset}`);
  if (request.from_micros > request.to_micros)
    throw new Error(`from_micros ${request.from_micros} is after to_micros ${request.to_micros}`);
  if (request.keys.length > MAX_FRAGMENT_KEYS)
    throw new Error(`the fragment names ${request.keys.length} keys, more than ${MAX_FRAGMENT_KEYS}`);
  for (const key of request.keys) checkKey(key);
  const keys =
    request.key_runs === undefined || request.key_runs.length === 0
      ? request.keys
      : request.keys.length === 0
        ? keysOfRuns(request.key_runs)
        : [...request.keys, ...keysFromRuns(request.key_runs, MAX_FRAGMENT_KEYS - request.keys.length)];
  if (request.fragment_id.length > 128) throw new Error('fragment_id is longer than 128 characters');
  if (!Number.isSafeInteger(request.newest_share) || request.newest_share < 0)
    throw new Error(`newest_share is not a whole number of rows: ${request.newest_share}`);
  const indexes = listedFromWire(request.listed_indexes);
  return {
    spec: {
      text: request.text,
      variables: variables as Record<string, unknown>,
      fromMicros: request.from_micros,
      toMicros: request.to_micros,
      nowMicros: request.now_micros,
      limit: request.limit,
      offset: request.offset,
      profile: request.profile,
      trace: request.trace,
      stream: request.stream,
      ...(request.newest_share === 0 ? {} : { newestShare: request.newest_share }),
    },
    keys,
    ...(indexes === undefined ? {} : { indexes }),
    fragmentId: request.fragment_id,
    headFloor: request.head_floor === null || Number.isNaN(request.head_floor.time) ? -Infinity : request.head_floor.time,
  };
}

export function countersToWire(counters: ShardCounters): wire.ShardQueryProgress {
  return {
    rows_read: counters.rowsRead,
    bytes_read: counters.bytesRead,
    units_total: counters.unitsTotal,
    units_done: counters.unitsDone,
    segments_total: counters.segmentsTotal,
    segments_scanned: counters.segmentsScanned,
    segments_skipped_index: counters.segmentsSkippedIndex,
    segments_skipped_time: counters.segmentsSkippedTime,
    segments_skipped_stats: counters.segmentsSkippedStats,
    segments_skipped_bloom: counters.segmentsSkippedBloom,
    blocks_skipped_range: counters.blocksSkippedRange,
    blocks_skipped_bloom: counters.blocksSkippedBloom,
    buffered_events: counters.bufferedEvents,
    blocks_cached: counters.blocksCached,
  };
}

export function countersFromWire(progress: wire.ShardQueryProgress): ShardCounters {
  return {
    rowsRead: progress.rows_read,
    bytesRead: progress.bytes_read,
    unitsTotal: progress.units_total,
    unitsDone: progress.units_done,
    segmentsTotal: progress.segments_total,
    segmentsScanned: progress.segments_scanned,
    segmentsSkippedIndex: progress.segments_skipped_index,
    segmentsSkippedTime: progress.segments_skipped_time,
    segmentsSkippedStats: progress.segments_skipped_stats,
    segmentsSkippedBloom: progress.segments_skipped_bloom,
    blocksSkippedRange: progress.blocks_skipped_range,
    blocksSkippedBloom: progress.blocks_skipped_bloom,
    bufferedEvents: progress.buffered_events,
    blocksCached: progress.blocks_cached,
  };
}
