/**
 * Events for cluster query tests, and where the cluster places them. A node that joins starts a
 * ring epoch a bucket or two ahead of now, so events for a cluster of all the nodes are timed in a
 * bucket past every such start (within ingest.max_future). The owners are computed here, from
 * ownersOf on the newest epoch's members, without asking the nodes.
 */
import { ownersOf } from '../../../node/cluster/ring';
import { bucketOf, homePartition, keyString, type PartitionKey } from '../../../storage/partition';

export interface TestEvent {
  event: string;
  time: number;
  host: string;
  source: string;
  fields: { status: number; ms: number };
}

const HOUR_MS = 3_600_000;

/** The start (ms) of an hour at least three hours ahead: past any epoch a join starts now with a bucket span of 1h. */
export function futureHour(nowMs = Date.now()): number {
  return Math.ceil((nowMs + 3 * HOUR_MS) / HOUR_MS) * HOUR_MS;
}

const HOSTS = ['web-1', 'web-2', 'web-3', 'web-4', 'web-5'];

/**
 * `count` events a second apart from `startMs`, over five hosts and two sources: each (host,
 * source) pair sends fewer than 256 events (SPILL_EVENTS) in one request, so none spills.
 */
export function makeEvents(startMs: number, count: number): TestEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    event: `request ${i} ${i % 10 === 0 ? 'timeout' : 'ok'}`,
    time: (startMs + i * 1000) / 1000,
    host: HOSTS[i % HOSTS.length]!,
    source: i % 2 === 0 ? 'nginx' : 'app',
    fields: { status: i % 5 === 0 ? 500 : 200, ms: (i * 37) % 1000 },
  }));
}

export interface Layout {
  partitions: number;
  bucketSpanMs: number;
  replicationFactor: number;
  /** The members of the epoch in force at the events' buckets. */
  members: readonly string[];
}

export function keyOfEvent(event: TestEvent, layout: Layout, index = 'main'): PartitionKey {
  return {
    index,
    bucket: bucketOf(Math.round(event.time * 1_000_000), layout.bucketSpanMs * 1000),
    partition: homePartition(`${event.host}\u0000${event.source}`, layout.partitions),
  };
}

export function ownersOfKey(key: PartitionKey, layout: Layout): string[] {
  return ownersOf(key, [{ epoch: 0, fromMicros: 0, members: [...layout.members] }], layout.replicationFactor);
}

/** Every key of `index` in the buckets of [fromMs, toMs), with its owners. */
export function keysOfRange(fromMs: number, toMs: number, layout: Layout, index = 'main'): { key: string; owners: string[] }[] {
  const keys: { key: string; owners: string[] }[] = [];
  for (let bucket = bucketOf(fromMs * 1000, layout.bucketSpanMs * 1000); bucket < toMs * 1000; bucket += layout.bucketSpanMs * 1000) {
    for (let partition = 0; partition < layout.partitions; partition++) {
      const key = { index, bucket, partition };
      keys.push({ key: keyString(key), owners: ownersOfKey(key, layout) });
    }
  }
  return keys;
}

/** The value at quantile q of the sorted values (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
