/**
 * `npm run bench -- placement [--events N (1000000)] [--nodes N (3)] [--spans N (40)] [--partitions N (16)]`
 *
 * How evenly placement spreads the cluster bench's events (the same generator, 10,000-event
 * requests, the hot-source spill, one-hour buckets, nodes n1...nN) over the nodes, computed
 * without servers: for `spans` six-hour spans that end at different times of day (the bucket
 * boundaries fall elsewhere in the data, and the buckets hash differently), each node's events
 * against an even share, under the consistent-hash ring of epochs without a layout and under the
 * dealt layout of the epochs a cluster decides now (node/cluster/ring.ts).
 */
import type { RingEpoch } from '../../node/cluster/epochs';
import { ownersOf } from '../../node/cluster/ring';
import type { LogEvent } from '../../storage/core/event';
import { RequestPartitioner } from '../../storage/core/request-placement';
import { EventGenerator } from './generate';

export interface PlacementBenchOptions {
  events: number;
  nodes: number;
  spans: number;
  partitions: number;
}

const SPAN_MS = 6 * 3600_000;
const HOUR_MICROS = 3600 * 1_000_000;
const REQUEST_EVENTS = 10_000;
/** Each span ends this much before the previous one: not a whole number of hours, so bucket boundaries move through the data. */
const SPAN_STEP_MS = 79 * 3600_000 + 17 * 60_000;

/** Each event's time (µs from the span's start) and partition, as the cluster bench sends them. */
function placedEvents(options: PlacementBenchOptions): { offsets: Float64Array; partitions: Int32Array } {
  const generator = new EventGenerator(11, 0, SPAN_MS / options.events);
  const offsets = new Float64Array(options.events);
  const partitions = new Int32Array(options.events);
  let partitioner = new RequestPartitioner(options.partitions);
  for (let i = 0; i < options.events; i++) {
    if (i % REQUEST_EVENTS === 0) partitioner = new RequestPartitioner(options.partitions);
    const event = generator.next();
    offsets[i] = Math.round(event.time * 1_000_000);
    partitions[i] = partitioner.next({ fields: { host: event.host, source: event.source } } as unknown as LogEvent);
  }
  return { offsets, partitions };
}

/** The largest distance of a node's events from an even share, as a fraction of it. */
function worstDeviation(perNode: Map<string, number>, members: readonly string[], copies: number): number {
  const even = copies / members.length;
  return Math.max(...members.map((member) => Math.abs((perNode.get(member) ?? 0) / even - 1)));
}

export function runPlacementBench(options: PlacementBenchOptions): void {
  const { offsets, partitions } = placedEvents(options);
  const members = Array.from({ length: options.nodes }, (_, i) => `n${i + 1}`);
  const layouts: [string, RingEpoch][] = [
    ['ring (epochs without a layout)', { epoch: 0, fromMicros: 0, members }],
    ['dealt', { epoch: 0, fromMicros: 0, members, layout: 'dealt' }],
  ];
  const deviations = new Map<string, number[]>();
  const endMs = Math.floor(Date.now() / 60_000) * 60_000;
  for (let span = 0; span < options.spans; span++) {
    const startMicros = (endMs - SPAN_MS - span * SPAN_STEP_MS) * 1000;
    const perKey = new Map<string, { bucket: number; partition: number; events: number }>();
    for (let i = 0; i < offsets.length; i++) {
      const time = startMicros + offsets[i]!;
      const bucket = Math.floor(time / HOUR_MICROS) * HOUR_MICROS;
      const name = `${bucket}|${partitions[i]}`;
      const key = perKey.get(name);
      if (key === undefined) perKey.set(name, { bucket, partition: partitions[i]!, events: 1 });
      else key.events++;
    }
    for (const [layout, epoch] of layouts) {
      for (const replication of [1, 2]) {
        const perNode = new Map<string, number>();
        for (const key of perKey.values()) {
          for (const owner of ownersOf({ index: 'main', bucket: key.bucket, partition: key.partition }, [epoch], replication)) {
            perNode.set(owner, (perNode.get(owner) ?? 0) + key.events);
          }
        }
        const name = `${layout}|${replication}`;
        const list = deviations.get(name) ?? [];
        list.push(worstDeviation(perNode, members, options.events * Math.min(replication, members.length)));
        deviations.set(name, list);
      }
    }
  }
  console.log(
    `\nplacement: ${options.events} bench events over ${options.nodes} nodes, ${options.partitions} partitions, ${options.spans} six-hour spans`,
  );
  console.log('| layout | replication | median distance of the farthest node from even | largest | spans over 20% |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, list] of deviations) {
    const [layout, replication] = name.split('|');
    const sorted = [...list].sort((a, b) => a - b);
    const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;
    console.log(
      `| ${layout} | ${replication} | ${percent(sorted[Math.floor(sorted.length / 2)]!)} | ${percent(sorted.at(-1)!)} | ${sorted.filter((value) => value > 0.2).length} of ${sorted.length} |`,
    );
  }
}
