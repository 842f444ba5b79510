/**
 * What placement tells a query, kept from one query to the next. A coordinator places every key
 * of a query's range (query-distribution.ts): for a day of hour buckets at 16 partitions that is
 * 384 key strings and as many owner lists, a fifth of what a query that reads nothing allocates
 * on the coordinator. Both are pure functions of what the memo is keyed by:
 * - a range's keys depend on its buckets only, not on where in its first and last bucket it starts
 *   and ends, so `-1h` asked again a minute later finds the same keys;
 * - a key's owners depend on the cluster state and the replication factor. A state is never changed
 *   in place (a change makes a new one), so the owners are kept while the same state object and
 *   factor are in force, and forgotten when either changes;
 * - which of a range's keys a query asks, and which node answers for which, depend besides on the
 *   nodes that can answer: kept by range and those nodes, for the same state and factor.
 */
import type { KeyAssignment } from '../../coordinator/key-assignment';
import type { ClusterState } from './cluster-state';
import { KeptByAge } from './kept-by-age';
import { bucketCover } from './key-range';

/** Ranges whose keys are kept: a dashboard's panels ask a few ranges over and over. */
export const MAX_MEMO_RANGES = 64;

/**
 * Keys kept over all ranges, and again over all queries' key lists: a range of a month of hour
 * buckets holds thousands, so the memo is bounded by keys as well as by ranges (past either, the
 * oldest range goes first).
 */
export const MAX_MEMO_KEYS = 262_144;

/** Owner lists kept for one state: past this, the memo starts again (a long range's keys come and go). */
export const MAX_MEMO_OWNERS = 200_000;

export class PlacementMemo {
  private readonly ranges = new KeptByAge<readonly string[] | null>(MAX_MEMO_RANGES, MAX_MEMO_KEYS, (keys) => keys?.length ?? 0);
  private ownersState: ClusterState | null = null;
  private ownersFactor = 0;
  private readonly ownerLists = new Map<string, readonly string[]>();
  private readonly groupNames = new Map<string, string>();
  private readonly queries = new KeptByAge<KeptQuery>(MAX_MEMO_RANGES, MAX_MEMO_KEYS, (kept) => kept.keys.length);

  /**
   * The keys `place` gives a range, computed once per `rangeKey` (which must name everything the
   * keys depend on); the oldest ranges are forgotten past MAX_MEMO_RANGES or MAX_MEMO_KEYS.
   */
  keysOf(rangeKey: string, place: () => readonly string[] | null): readonly string[] | null {
    if (this.ranges.has(rangeKey)) return this.ranges.get(rangeKey)!;
    const keys = place();
    this.ranges.set(rangeKey, keys === null ? null : Object.freeze([...keys]));
    return keys;
  }

  /** `key`'s owners under `state` at `replicationFactor`, computed by `place` the first time. */
  ownersOf(key: string, state: ClusterState, replicationFactor: number, place: (key: string) => readonly string[]): readonly string[] {
    this.keepFor(state, replicationFactor);
    let owners = this.ownerLists.get(key);
    if (owners === undefined) {
      owners = Object.freeze([...place(key)]);
      this.ownerLists.set(key, owners);
    }
    return owners;
  }

  /** `key`'s storage group under `state` at `replicationFactor` (storage-groups.ts), computed by `name` the first time. */
  groupOf(key: string, state: ClusterState, replicationFactor: number, name: (key: string) => string): string {
    this.keepFor(state, replicationFactor);
    let group = this.groupNames.get(key);
    if (group === undefined) {
      group = name(key);
      this.groupNames.set(key, group);
    }
    return group;
  }

  /**
   * The keys a query over `queryKey` (a placed range's key and the nodes that can answer) asks,
   * computed by `keys` the first time, under `state` at `replicationFactor`; the oldest are
   * forgotten past MAX_MEMO_RANGES or MAX_MEMO_KEYS.
   */
  queryOf(queryKey: string, state: ClusterState, replicationFactor: number, keys: () => readonly string[]): KeptQuery {
    this.keepFor(state, replicationFactor);
    let kept = this.queries.get(queryKey);
    if (kept === undefined) {
      kept = new KeptQuery(Object.freeze([...keys()]));
      this.queries.set(queryKey, kept);
    }
    return kept;
  }

  /** Forgets what another state or factor placed, or everything past MAX_MEMO_OWNERS keys. */
  private keepFor(state: ClusterState, replicationFactor: number): void {
    if (
      state === this.ownersState &&
      replicationFactor === this.ownersFactor &&
      this.ownerLists.size < MAX_MEMO_OWNERS &&
      this.groupNames.size < MAX_MEMO_OWNERS
    )
      return;
    this.ownerLists.clear();
    this.groupNames.clear();
    this.queries.clear();
    this.ownersState = state;
    this.ownersFactor = replicationFactor;
  }
}

/**
 * The memo key of a placed range: the index names as given, the buckets it overlaps (the first
 * bucket's start and their count), the placement's bucket span and partitions, the splits and the
 * most keys placement may give. Null for a range placement does not enumerate (an empty, negative
 * or unbounded one), which the caller answers without the memo.
 */
export function placedRangeKey(
  indexPatterns: readonly string[],
  fromMicros: number,
  toMicros: number,
  placement: { bucketSpanMicros: number; partitions: number },
  maxKeys: number,
  splits: readonly number[],
): string | null {
  if (!(fromMicros < toMicros) || !(fromMicros >= 0) || !Number.isFinite(toMicros)) return null;
  const { first, count } = bucketCover(fromMicros, toMicros, placement.bucketSpanMicros);
  return JSON.stringify([indexPatterns, first, count, placement.bucketSpanMicros, placement.partitions, maxKeys, splits]);
}

/** A range's keys for a query, and their first assignment once a query made it. */
export class KeptQuery {
  private assignment: KeyAssignment | null = null;

  constructor(readonly keys: readonly string[]) {}

  /**
   * The assignment of these keys: `assign`'s the first time, kept after. Each caller gets its own
   * map, and the same key lists, frozen: a list sent to a node is also the key of its wire form
   * (shard-query-wire.ts) and of its set (coordinator/key-sets.ts), made once.
   */
  assigned(assign: () => KeyAssignment): KeyAssignment {
    if (this.assignment === null) {
      this.assignment = assign();
      for (const list of this.assignment.byNode.values()) Object.freeze(list);
    }
    return { byNode: new Map(this.assignment.byNode), missing: [...this.assignment.missing] };
  }
}
