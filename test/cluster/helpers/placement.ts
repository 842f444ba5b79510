/**
 * Where a cluster places test events, computed from the events themselves as ingest places them:
 * each event's partition key (the index, its bucket, and its pair's partition with the hot-source
 * spill within its request, storage/core/request-placement.ts) and the nodes that own the key on a ring of
 * one epoch. Tests time their events where that epoch is in force (test-events.ts).
 */
import { CURRENT_LAYOUT } from '../../../node/cluster/epochs';
import { ownersOf } from '../../../node/cluster/ring';
import { DEFAULT_INDEX } from '../../../storage/core/event';
import { bucketOf, homePartition, keyString, type PartitionKey } from '../../../storage/core/partition';
import { spilledPartition } from '../../../storage/core/request-placement';
import type { TestEvent } from './test-events';

/** cluster.partitions and cluster.bucket_span as the tests leave them (the defaults). */
export const PARTITIONS = 16;
export const BUCKET_SPAN_MICROS = 3600 * 1_000_000;

/** A test cluster's ring: its members and the settings that decide placement. */
export interface RingLayout {
  members: readonly string[];
  replicationFactor: number;
  /** cluster.partitions; PARTITIONS when the test leaves it. */
  partitions?: number;
}

export interface PlacedEvent {
  key: PartitionKey;
  owners: string[];
}

function ownersOfKey(key: PartitionKey, layout: RingLayout): string[] {
  // A test cluster decides its epoch 0 in the layout of this release.
  return ownersOf(key, [{ epoch: 0, fromMicros: 0, members: [...layout.members], layout: CURRENT_LAYOUT }], layout.replicationFactor);
}

/**
 * The key and owners of each event of one ingest request, in request order. The spill counts a
 * pair's events within the request, so the events must be placed as the request that sends them.
 * Test events name no index: they go to the default one.
 */
export function placeRequest(request: readonly TestEvent[], layout: RingLayout): PlacedEvent[] {
  const partitions = layout.partitions ?? PARTITIONS;
  const seenOfPair = new Map<string, number>();
  return request.map((event) => {
    const pair = `${event.host}\u0000${event.source}`;
    const seen = seenOfPair.get(pair) ?? 0;
    seenOfPair.set(pair, seen + 1);
    const key = {
      index: DEFAULT_INDEX,
      bucket: bucketOf(Math.round(event.time * 1_000_000), BUCKET_SPAN_MICROS),
      partition: spilledPartition(homePartition(pair, partitions), seen, partitions),
    };
    return { key, owners: ownersOfKey(key, layout) };
  });
}

/** Every key of the default index in the buckets of [fromMs, toMs), with its owners. */
export function keysOfRange(fromMs: number, toMs: number, layout: RingLayout): { key: string; owners: string[] }[] {
  const partitions = layout.partitions ?? PARTITIONS;
  const keys: { key: string; owners: string[] }[] = [];
  for (let bucket = bucketOf(fromMs * 1000, BUCKET_SPAN_MICROS); bucket < toMs * 1000; bucket += BUCKET_SPAN_MICROS) {
    for (let partition = 0; partition < partitions; partition++) {
      const key = { index: DEFAULT_INDEX, bucket, partition };
      keys.push({ key: keyString(key), owners: ownersOfKey(key, layout) });
    }
  }
  return keys;
}

/** Events of one ingest request per node id that owns them. */
export function eventsByOwner(request: readonly TestEvent[], layout: RingLayout): Map<string, number> {
  const counts = new Map<string, number>(layout.members.map((id) => [id, 0]));
  for (const { owners } of placeRequest(request, layout)) for (const owner of owners) counts.set(owner, counts.get(owner)! + 1);
  return counts;
}

/** How many events of one ingest request have at least one owner in `alive`. */
export function eventsWithOwnerIn(request: readonly TestEvent[], layout: RingLayout, alive: ReadonlySet<string>): number {
  return placeRequest(request, layout).filter(({ owners }) => owners.some((owner) => alive.has(owner))).length;
}

/** Adds `more` to `into`, node by node. */
export function addCounts(into: Map<string, number>, more: ReadonlyMap<string, number>): void {
  for (const [id, count] of more) into.set(id, (into.get(id) ?? 0) + count);
}
