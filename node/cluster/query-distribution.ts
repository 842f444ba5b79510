/**
 * The cluster as a query sees it (coordinator/distribution.ts's Distribution, from membership):
 * a node is usable while it is up and may be asked for its keys (catch-up.ts: no hints pending
 * for it, as far as this node can know); this node too, which is up. A query on a node that has
 * not yet heard every member's hint report since it started waits up to a heartbeat interval for
 * them first: without them it could ask no node, and would answer partial. The keys to ask for:
 * - a query that names its indexes (no glob) over a range of at most MAX_PLACED_KEYS keys asks
 *   every key placement gives that range (placedKeys): no round trip before the fragments go
 *   out, and a key nobody holds costs a node nothing;
 * - a query with a glob that may run again (QueryRange.listGlobs) is placed the same way for the
 *   index names the members reported (NodeStats.indexes), while every node it asks speaks 1.12:
 *   each fragment lists those names, and a node holding another index the globs match refuses it
 *   (listed-indexes.ts), so the query runs again as below. Every node that may own a key in range
 *   must answer for some key, or nothing would check its indexes: where the assignment gives one
 *   none, the query goes as below at once;
 * - any other query asks every usable node's Keys first (this node's own read locally) and takes
 *   their union; a node whose Keys call fails is unusable for that query.
 * Either way the keys in range whose owners are all unusable are added: no node can answer for
 * them, so they come back missing. Those cover the index names the nodes reported in their
 * heartbeats (NodeStats.indexes; a name no node reported holds nothing), over the query's range
 * clamped to where events can be (retention's cutoff to ingest.max_future ahead). A forgotten
 * node answers for none of the keys it stood for, even once its id joined again as a new node.
 */
import type { DistributedQuery, Distribution, DistributionObserver, QueryRange } from '../../coordinator/distribution';
import { assignKeys, assignView } from '../../coordinator/key-assignment';
import { hasGlob, listIndexes } from '../../coordinator/listed-indexes';
import type { ClusterView, ShardTarget } from '../../coordinator/scatter-gather';
import { checkAlive } from '../../query/exec/limits';
import { keyString, parseKeyString, pieceEnd, piecesOfBucket, splitsOf } from '../../storage/core/partition';
import { indexMatcher } from '../../storage/scan';
import { isForgottenIn, isStoredAloneForgotten, type ClusterState, type Member } from './cluster-state';
import { epochAt, membersInForce } from './epochs';
import type { PeerClients } from './grpc/peers';
import type { FragmentStreams } from './fragment-streams';
import { bucketCover, bucketsInRange, keysInRange } from './key-range';
import type { Membership } from './membership';
import { LearnedIndexNames } from './learned-indexes';
import { PlacementMemo, placedRangeKey } from './placement-memo';
import { remoteKeys, RemoteShardTarget } from './remote-shard-target';
import { CATALOG_MINOR, FRAGMENT_STREAM_MINOR, KEY_RUNS_MINOR, LISTED_INDEXES_MINOR } from './protocol';
import { ownersOf } from './ring';
import { ownersOfKey, storedAloneKeys } from './stored-alone';
import { storageGroupNameOf } from './storage-groups';

/**
 * The most keys a query enumerates from placement instead of asking the nodes: 16 partitions of
 * one index over 85 days of hour buckets, or of four indexes over three weeks. A node skips a key
 * it holds nothing of for the price of a set entry, and the keys go out as runs
 * (key-runs.ts), so placing costs less than the Keys round trip it saves; the coordinator keeps
 * a range's keys and their assignment (placement-memo.ts), so a dashboard's range is placed once.
 * A longer range asks the nodes, whose Keys answer only with the keys that hold data.
 */
export const MAX_PLACED_KEYS = 32_768;

/**
 * How long an index name a refusal taught stays known without a heartbeat carrying it: many
 * heartbeats (1 s apart by default), so a name is never dropped before the members report it.
 */
const LEARNT_INDEX_MS = 5 * 60_000;
/** The most names kept from refusals: a member sends a refusal's names, not a client. */
const MAX_LEARNT_INDEXES = 1_024;

/**
 * Every key placement gives `[fromMicros, toMicros)` of the named indexes; null when the query
 * names an index by a glob (a new index may not have reached this node's view of the others'
 * index names yet: only the nodes can say), when the range is unbounded, or when the keys would
 * be more than `maxKeys`.
 */
export function placedKeys(
  indexPatterns: readonly string[],
  fromMicros: number,
  toMicros: number,
  placement: Pick<Placement, 'bucketSpanMicros' | 'partitions'>,
  maxKeys = MAX_PLACED_KEYS,
  splits: readonly number[] = [],
): string[] | null {
  if (hasGlob(indexPatterns)) return null;
  if (!(fromMicros < toMicros)) return [];
  // Epoch 0 places buckets from 1970 on; an unbounded range has too many keys anyway.
  if (!(fromMicros >= 0) || !Number.isFinite(toMicros)) return null;
  const buckets = bucketCover(fromMicros, toMicros, placement.bucketSpanMicros).count;
  if (buckets * placement.partitions * new Set(indexPatterns).size > maxKeys) return null;
  return keysInRange(indexPatterns, fromMicros, toMicros, placement.bucketSpanMicros, placement.partitions, splits).map(keyString);
}

export interface Placement {
  replicationFactor: number;
  bucketSpanMicros: number;
  partitions: number;
  retentionMs: number;
  maxFutureMs: number;
}

export interface QueryDistributionOptions {
  self: string;
  membership: Membership;
  peers: PeerClients;
  /** The long-lived fragment calls to the peers (a peer of 1.9 or later is asked on them). */
  fragments: FragmentStreams;
  /** Whether a node may be asked for its keys, as far as hints go (CatchUp.mayAsk). */
  mayAsk: (node: string) => boolean;
  /** Resolves once this node heard every member's hint report since it started, or gave up waiting (CatchUp.reportsHeard). */
  reportsHeard: (signal: AbortSignal) => Promise<void>;
  /** This node's keys in a range (engine.localKeys). */
  localKeys: (range: QueryRange) => Iterable<string>;
  /** This node's own fragments. */
  local: ShardTarget;
  placement: () => Placement;
  observer: DistributionObserver;
  /** cluster.failure_timeout: a node silent that long in the middle of its fragment counts as failed. */
  failureTimeoutMs: () => number;
}

export { parseKeyString };

/**
 * Whether `owner` can answer for `key` when it answers at all: not where its id stands for a
 * forgotten node (the ring epochs it was forgotten through, its stored-alone entry).
 */
export function readsForgotten(
  state: Pick<ClusterState, 'epochs' | 'forgotten'>,
  owner: string,
  key: { bucket: number; partition: number },
): boolean {
  if (state.forgotten.length === 0) return true;
  if (key.partition < 0) return !isStoredAloneForgotten(state, owner);
  return !isForgottenIn(state, owner, epochAt(state.epochs, key.bucket).epoch);
}

/**
 * The keys in `[fromMicros, toMicros)` of the indexes whose owners are none of `answering` (or
 * only ids that stand there for forgotten nodes): the ring's keys of every piece of each bucket in
 * range (an epoch whose members all answer, none of them forgotten, has none), and the stored-alone
 * keys of members that do not answer or were forgotten. When every node answers, nothing is
 * enumerated.
 */
export function keysWithoutOwners(
  indexes: readonly string[],
  fromMicros: number,
  toMicros: number,
  state: Pick<ClusterState, 'epochs' | 'storedAlone' | 'forgotten'>,
  placement: Placement,
  answering: ReadonlySet<string>,
): string[] {
  const keys: string[] = [];
  if (indexes.length === 0) return keys;
  const { epochs } = state;
  const pieces: Pick<Placement, 'bucketSpanMicros'> & { splits: number[]; partitions: number } = {
    bucketSpanMicros: placement.bucketSpanMicros,
    partitions: placement.partitions,
    splits: splitsOf(
      epochs.map((epoch) => epoch.fromMicros),
      placement.bucketSpanMicros,
    ),
  };
  for (const bucket of bucketsInRange(fromMicros, toMicros, placement.bucketSpanMicros)) {
    for (const piece of piecesOfBucket(bucket, pieces)) {
      // A piece of the range's first or last bucket may lie wholly outside it (a query from a split on).
      if (pieceEnd(piece, pieces) <= fromMicros || piece >= toMicros) continue;
      const epoch = epochAt(epochs, piece);
      const reads = (owner: string): boolean => answering.has(owner) && !isForgottenIn(state, owner, epoch.epoch);
      if (epoch.members.every(reads)) continue;
      for (const index of indexes) {
        for (let partition = 0; partition < placement.partitions; partition++) {
          const key = { index, bucket: piece, partition };
          if (!ownersOf(key, epochs, placement.replicationFactor).some(reads)) keys.push(keyString(key));
        }
      }
    }
  }
  const silent = {
    ...state,
    storedAlone: state.storedAlone.filter((alone) => !answering.has(alone.node) || isStoredAloneForgotten(state, alone.node)),
  };
  keys.push(...storedAloneKeys(silent as ClusterState, indexes, fromMicros, toMicros, placement.bucketSpanMicros));
  return keys;
}

export class QueryDistribution implements Distribution {
  readonly observer: DistributionObserver;
  private readonly memo = new PlacementMemo();
  private readonly learnt = new LearnedIndexNames(LEARNT_INDEX_MS, MAX_LEARNT_INDEXES);

  constructor(private readonly options: QueryDistributionOptions) {
    this.observer = options.observer;
  }

  async prepare(range: QueryRange, signal: AbortSignal): Promise<DistributedQuery> {
    const { membership, self } = this.options;
    await this.options.reportsHeard(signal);
    checkAlive(signal);
    const placement = this.options.placement();
    const state = membership.state();
    const views = membership.members();
    const members = new Map<string, Member>(state.members.map((member) => [member.id, member]));
    const usable = views.filter((view) => view.up && this.options.mayAsk(view.member.id)).map((view) => view.member.id);
    // Events stored alone keep the buckets of the node that stored them, which only it can list.
    const aloneInRange = state.storedAlone.some((alone) => alone.fromMicros < range.toMicros && alone.toMicros >= range.fromMicros);
    const splits = splitsOf(
      state.epochs.map((epoch) => epoch.fromMicros),
      placement.bucketSpanMicros,
    );
    // A glob stands for the index names the members reported, where every node asked checks that list.
    const listed =
      range.listGlobs === true && !aloneInRange && hasGlob(range.indexPatterns) && usable.every((node) => this.checksLists(node))
        ? listIndexes(range.indexPatterns, this.knownIndexNames(views, state))
        : null;
    if (listed !== null && listed.length === 0) return this.prepare({ ...range, listGlobs: false }, signal);
    const patterns = listed ?? range.indexPatterns;
    const placeRange = (): readonly string[] | null =>
      placedKeys(patterns, range.fromMicros, range.toMicros, placement, MAX_PLACED_KEYS, splits);
    const rangeKey = placedRangeKey(patterns, range.fromMicros, range.toMicros, placement, MAX_PLACED_KEYS, splits);
    const placed = aloneInRange ? null : rangeKey === null ? placeRange() : this.memo.keysOf(rangeKey, placeRange);
    const answering = new Set<string>(placed === null ? [] : usable);
    // A key's owners are asked several times a query (which keys to ask, the assignment, a
    // retry's), and again by the next query: each key is parsed and placed once per state.
    const { replicationFactor } = placement;
    const place = (key: string): readonly string[] => ownersOfKey(parseKeyString(key), state, replicationFactor);
    const owners = (key: string): readonly string[] => this.memo.ownersOf(key, state, replicationFactor, place);
    // An id that stands for a forgotten node reads nothing there, even once it joined again as a
    // new node: the data it stood for was given up.
    const reads = (owner: string, key: string): boolean =>
      answering.has(owner) && (state.forgotten.length === 0 || readsForgotten(state, owner, parseKeyString(key)));
    // Placed keys no usable node owns are left to keysWithoutOwners below, which counts them
    // missing only where events can be, as it does for keys the nodes report.
    const askable = (): string[] => (placed ?? []).filter((key) => owners(key).some((owner) => reads(owner, key)));
    // A placed range asked again with the same nodes answering asks the same keys, assigned alike.
    const kept =
      placed === null || rangeKey === null
        ? null
        : this.memo.queryOf(`${rangeKey}/${[...answering].sort().join(',')}`, state, replicationFactor, askable);
    const keys = new Set<string>(kept === null ? askable() : []);
    await Promise.all(
      (placed === null ? usable : []).map(async (node) => {
        try {
          const held = node === self ? this.options.localKeys(range) : await remoteKeys(this.options.peers, members.get(node)!.grpc, range);
          for (const key of held) keys.add(key);
          answering.add(node);
        } catch {
          // It does not answer: for this query it is as good as down.
        }
      }),
    );
    checkAlive(signal);
    const now = Date.now();
    const from = Math.max(range.fromMicros, (now - placement.retentionMs) * 1000);
    const to = Math.min(range.toMicros, (now + placement.maxFutureMs) * 1000);
    const unowned = keysWithoutOwners(this.indexNames(range, views, state), from, to, state, placement, answering);
    for (const key of unowned) keys.add(key);
    // Unowned keys have no reading owner, so none of them is a kept key.
    const asked = kept === null ? [...keys] : unowned.length === 0 ? kept.keys : [...kept.keys, ...keys];

    // The storage group a key's owners keep it in (storage-groups.ts): a stored-alone key alone.
    const nameGroup = (key: string): string => {
      const parsed = parseKeyString(key);
      return parsed.partition < 0 ? `alone:${key}` : storageGroupNameOf(parsed, owners(key), state.epochs);
    };
    const group = (key: string): string => this.memo.groupOf(key, state, replicationFactor, nameGroup);
    const view: ClusterView = {
      owners,
      usable: reads,
      group,
      keptAssignment: (given) =>
        kept === null || given !== kept.keys ? null : kept.assigned(() => assignKeys(kept.keys, owners, reads, group)),
      target: (node) => {
        if (node === self) return this.options.local;
        const member = members.get(node);
        if (member === undefined) throw new Error(`node ${node} is not a member of the cluster`);
        const streams = membership.speaksMinor(node, FRAGMENT_STREAM_MINOR) ? this.options.fragments : null;
        const target = new RemoteShardTarget(
          node,
          member.grpc,
          this.options.peers,
          range.deadlineMs,
          this.options.failureTimeoutMs(),
          streams,
          membership.speaksMinor(node, KEY_RUNS_MINOR),
        );
        // A node of a release without ShardQuery.Catalog is not asked for it: its keys go to their other owners.
        return membership.speaksMinor(node, CATALOG_MINOR) ? target : { node, run: (fragment, call) => target.run(fragment, call) };
      },
    };
    if (listed === null || placed === null) return { view, keys: asked, bucketSpanMicros: placement.bucketSpanMicros };
    // Every node that may own a key in range vouches for the list by answering for some of its
    // keys; one the assignment gives none (a range of few keys, many nodes) could not, so the
    // query asks the nodes instead.
    const byNode = assignView(view, asked).byNode;
    const mayOwn = membersInForce(state.epochs, range.fromMicros, range.toMicros);
    if (usable.some((node) => mayOwn.has(node) && !byNode.has(node))) return this.prepare({ ...range, listGlobs: false }, signal);
    return { view: { ...view, listedIndexes: listed }, keys: asked, bucketSpanMicros: placement.bucketSpanMicros };
  }

  learnIndexes(names: readonly string[]): void {
    this.learnt.learn(names, Date.now());
  }

  /** Whether `node` refuses a fragment whose listed index names lack one it holds (this node does). */
  private checksLists(node: string): boolean {
    return node === this.options.self || this.options.membership.speaksMinor(node, LISTED_INDEXES_MINOR);
  }

  /**
   * The index names the query may read: those some node reported in its last heartbeat (even one
   * down now), and those of the stored-alone entries. A name the query spells out that none of
   * them has holds no events anywhere, so its keys are not counted missing: `from nosuchindex` is
   * whole, not partial, while a node is down.
   */
  private indexNames(range: QueryRange, views: ReturnType<Membership['members']>, state: ClusterState): string[] {
    const matches = indexMatcher(range.indexPatterns);
    return [...this.knownIndexNames(views, state)].filter(matches).sort();
  }

  /**
   * Every index name some node reported in its last heartbeat (even one down now), or a
   * stored-alone entry holds, or a node's refusal taught this coordinator lately.
   */
  private knownIndexNames(views: ReturnType<Membership['members']>, state: ClusterState): Set<string> {
    const names = new Set<string>(this.learnt.current(Date.now()));
    for (const view of views) for (const name of view.stats?.indexes ?? []) names.add(name);
    for (const alone of state.storedAlone) for (const name of alone.indexes) names.add(name);
    return names;
  }
}
