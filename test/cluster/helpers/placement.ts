/**
 * Where a test's events belong, computed from the events themselves: each event's partition key
 * (index, bucket, partition with the hot-source spill within its request) and the nodes of a ring
 * that own it. Events are timed in a bucket past every ring epoch a test cluster decides at its
 * start (a joining node's epoch starts at most two buckets ahead), so the ring of all the nodes
 * places them.
 */
import { ownersOf } from '../../../node/cluster/ring';
import { spilledPartition } from '../../../storage/partition-spill';
import { bucketOf, homePartition } from '../../../storage/partition';

/** cluster.partitions and cluster.bucket_span as the tests leave them (the defaults). */
export const PARTITIONS = 16;
export const BUCKET_SPAN_MICROS = 3600 * 1_000_000;

/** A time (Unix seconds) 20 hours ahead: within ingest.max_future (1 day), past every epoch decided now. */
export function placedTime(offsetSeconds = 0): number {
  return Math.floor(Date.now() / 1000) + 20 * 3600 + offsetSeconds;
}

export interface TestEvent {
  event: string;
  time: number;
  host: string;
  source: string;
}

/** Events of `hosts` hosts, round robin, with `source`, timed from placedTime(). */
export function makeEvents(tag: string, count: number, hosts: number, source = 'app'): TestEvent[] {
  const time = placedTime();
  return Array.from({ length: count }, (_, i) => ({ event: `${tag} event ${i}`, time: time + (i % 600), host: `${tag}-host-${i % hosts}`, source }));
}

/** Each event's owners, for one ingest request (the spill counts a pair's events within it), with `replicationFactor` owners a key on a ring of `members`. */
function ownersOfEvents(request: readonly TestEvent[], members: readonly string[], replicationFactor: number): string[][] {
  const epochs = [{ epoch: 0, fromMicros: 0, members: [...members] }];
  const seen = new Map<string, number>();
  return request.map((event) => {
    const pair = `${event.host}\u0000${event.source}`;
    const n = seen.get(pair) ?? 0;
    seen.set(pair, n + 1);
    const partition = spilledPartition(homePartition(pair, PARTITIONS), n, PARTITIONS);
    const key = { index: 'main', bucket: bucketOf(Math.round(event.time * 1_000_000), BUCKET_SPAN_MICROS), partition };
    return ownersOf(key, epochs, replicationFactor);
  });
}

/** Events of one ingest request per node id that owns them. */
export function eventsByOwner(request: readonly TestEvent[], members: readonly string[], replicationFactor: number): Map<string, number> {
  const counts = new Map<string, number>(members.map((id) => [id, 0]));
  for (const owners of ownersOfEvents(request, members, replicationFactor)) for (const owner of owners) counts.set(owner, counts.get(owner)! + 1);
  return counts;
}

/** How many events of one ingest request have at least one owner in `alive`. */
export function eventsWithOwnerIn(request: readonly TestEvent[], members: readonly string[], replicationFactor: number, alive: ReadonlySet<string>): number {
  return ownersOfEvents(request, members, replicationFactor).filter((owners) => owners.some((owner) => alive.has(owner))).length;
}

/** Adds `more` to `into`, node by node. */
export function addCounts(into: Map<string, number>, more: ReadonlyMap<string, number>): void {
  for (const [id, count] of more) into.set(id, (into.get(id) ?? 0) + count);
}
