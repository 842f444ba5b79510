/**
 * Placement: which nodes own a partition key. A key is placed by the ring epoch in force at its
 * bucket's start (epochs.ts), in the layout that epoch records:
 * - `dealt`: the epoch's members are put in an order of their own for each (index, bucket), by
 *   rendezvous hashing (each member ranked by a hash of the index, the bucket and its id), and the
 *   bucket's partitions are dealt over that order in turn: partition p's primary is member
 *   `p mod n` of the order, its replicas the next ones. Every member owns the same number of a
 *   bucket's partitions, give or take one, and which members take the extra ones changes from
 *   bucket to bucket.
 * - none (epochs decided before layouts): a consistent-hash ring (`hashring`) of the members, the
 *   owners the first `replicationFactor` distinct members clockwise from a hash of the key. With
 *   a few nodes and 16 partitions a bucket, its shares stray far from even (`npm run bench --
 *   placement` compares the two).
 * Either is a function of the key and the epoch's member ids alone, so every node computes the
 * same owners without asking anyone, and a new epoch changes the owners of no bucket before its
 * start.
 */
import { createHash } from 'crypto';
import HashRing from 'hashring';
import { keyString, type PartitionKey } from '../../storage/core/partition';
import { epochAt, type RingEpoch } from './epochs';

/**
 * Virtual nodes per member; hashring puts 4 ring points on each, 2,048 points a member: enough to
 * keep every member's share of keys within 15% of even, small enough to build a ring of 100
 * members in under a second (figures: docs/benchmarks.md, "Figures behind the constants").
 */
export const RING_VIRTUAL_NODES = 512;

/** Rings kept, least recently used dropped first: the epochs a query's range or a write's buckets touch. */
const MAX_CACHED_RINGS = 8;
/** Owners remembered: a query over many buckets asks for the same keys again, and hashing a key is not free. */
const MAX_CACHED_OWNERS = 65_536;

let ringsBuilt = 0;

class Ring {
  readonly id = ++ringsBuilt;
  private readonly hashRing: HashRing;

  constructor(members: readonly string[]) {
    // Sorted and deduplicated: the ring must not depend on the order the members were given in.
    const ids = [...new Set(members)].sort();
    const servers: Record<string, { vnodes: number }> = {};
    for (const id of ids) servers[id] = { vnodes: RING_VIRTUAL_NODES };
    // A default vnode count other than ours makes hashring take the per-member count exactly
    // (with equal counts it recomputes it through a float product that may round down).
    this.hashRing = new HashRing(servers, 'md5', { 'vnode count': RING_VIRTUAL_NODES + 1, 'max cache size': 1 });
  }

  /** The first `count` distinct members clockwise from the key's position. */
  ownersOf(keyText: string, count: number): readonly string[] {
    const memo = `${this.id}|${count}|${keyText}`;
    let owners = ownersMemo.get(memo);
    if (owners === undefined) {
      owners = Object.freeze(this.hashRing.range(keyText, count, true));
      if (ownersMemo.size >= MAX_CACHED_OWNERS) ownersMemo.clear();
      ownersMemo.set(memo, owners);
    }
    return owners;
  }
}

const ownersMemo = new Map<string, readonly string[]>();
/** An epoch's members as one string: the ring's identity (a fresh copy of the cluster state finds its rings). */
const membersKeys = new WeakMap<RingEpoch, string>();
/** Rings by members key, least recently used first. */
const rings = new Map<string, Ring>();
let lastMembers: string | null = null;
let lastRing: Ring | null = null;

/** The ring of an epoch (epochs are values: their members never change once decided). */
function ringOf(epoch: RingEpoch): Ring {
  let members = membersKeys.get(epoch);
  if (members === undefined) {
    members = [...new Set(epoch.members)].sort().join('\n');
    membersKeys.set(epoch, members);
  }
  if (members === lastMembers && lastRing !== null) return lastRing;
  let ring = rings.get(members);
  if (ring === undefined) {
    ring = new Ring(epoch.members);
    if (rings.size >= MAX_CACHED_RINGS) rings.delete(rings.keys().next().value as string);
  } else {
    rings.delete(members);
  }
  rings.set(members, ring);
  lastMembers = members;
  lastRing = ring;
  return ring;
}

/** Dealing orders remembered per epoch, by `index|bucket`: a write or a query asks for a bucket's partitions one after another. */
const dealingOrders = new WeakMap<RingEpoch, Map<string, readonly string[]>>();
const MAX_CACHED_ORDERS = 65_536;

/** A member's rank for one (index, bucket): 48 bits of an MD5, which spreads ids that differ in a character as well as any. */
function rendezvousRank(bucketText: string, member: string): number {
  return createHash('md5').update(`${bucketText}|${member}`).digest().readUIntBE(0, 6);
}

/** The order in which an index's bucket deals its partitions over an epoch's members. */
function dealingOrder(epoch: RingEpoch, index: string, bucket: number): readonly string[] {
  let orders = dealingOrders.get(epoch);
  if (orders === undefined) {
    orders = new Map();
    dealingOrders.set(epoch, orders);
  }
  const bucketText = `${index}|${bucket}`;
  let order = orders.get(bucketText);
  if (order === undefined) {
    const ranked = [...new Set(epoch.members)].map((member) => ({ member, rank: rendezvousRank(bucketText, member) }));
    // Ties (one in 2^48) fall to the id, so the order never depends on the order members were given in.
    ranked.sort((a, b) => a.rank - b.rank || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
    order = Object.freeze(ranked.map((each) => each.member));
    if (orders.size >= MAX_CACHED_ORDERS) orders.clear();
    orders.set(bucketText, order);
  }
  return order;
}

/** Owners in the dealt layout: the partition's turn in the bucket's order, then the members after it. */
function dealtOwners(epoch: RingEpoch, key: PartitionKey, replicationFactor: number): string[] {
  if (!Number.isSafeInteger(key.partition)) throw new Error(`a partition is a whole number: ${key.partition}`);
  const order = dealingOrder(epoch, key.index, key.bucket);
  const count = Math.min(replicationFactor, order.length);
  const first = ((key.partition % order.length) + order.length) % order.length;
  const owners: string[] = [];
  for (let i = 0; i < count; i++) owners.push(order[(first + i) % order.length]!);
  return owners;
}

/**
 * The nodes that own a key: `replicationFactor` distinct members of the epoch in force at the
 * key's bucket (all of them when the epoch has fewer), the first one the key's primary. Throws
 * when no epoch is in force at the bucket (a cluster state always has epoch 0 from time 0).
 */
export function ownersOf(key: PartitionKey, epochs: readonly RingEpoch[], replicationFactor: number): string[] {
  if (!Number.isInteger(replicationFactor) || replicationFactor < 1)
    throw new Error(`a replication factor is a whole number from 1: ${replicationFactor}`);
  const epoch = epochAt(epochs, key.bucket);
  if (epoch.members.length === 0) return [];
  if (epoch.layout === 'dealt') return dealtOwners(epoch, key, replicationFactor);
  return [...ringOf(epoch).ownersOf(keyString(key), replicationFactor)];
}
