/**
 * `npm run bench -- tail [--nodes N (1 and 3)] [--ingest-rate N (50000)] [--seconds N (20)] [--batch N (1000)]`
 *
 * Live tail end-to-end latency: from an ingest request's acknowledgement to the SSE delivery of
 * its event to a tail session on the first node, while `--ingest-rate` events/s of generated
 * traffic are ingested (in a cluster, the requests spread over every node, so most events reach
 * the session through another member). Every request carries one probe event (field `probe`, its
 * sequence number) among the generated ones; the session follows `from bench | where probe > 0`,
 * so its pipeline runs over every ingested event and delivers the probes. A probe delivered
 * before its request's acknowledgement reached the client counts as 0 ms. Printed per setup:
 * the rate achieved with no session open and with one (the same load, one after the other), the
 * probes delivered of those acknowledged, p50/p99/max latency and the drops; the
 * target is p99 under 250 ms at 50,000 events/s, on one node and on three.
 */
import http from 'http';
import { performance } from 'perf_hooks';
import { TestServer } from '../../test/helpers/server';
import { startBenchCluster } from './bench-cluster';
import { EventGenerator } from './generate';

export interface TailBenchOptions {
  /** Node counts to measure, each its own setup. */
  nodes: number[];
  ingestRate: number;
  seconds: number;
  batch: number;
}

/** Measured after this much of each run, so the servers are warm. */
const WARMUP_SECONDS = 3;
/** Requests in flight at most: beyond it the load waits (and the achieved rate says so). */
const MAX_IN_FLIGHT = 8;
/** Distinct request bodies cycled through (their events repeat; the probe differs). */
const BODIES = 16;

interface Outcome {
  nodes: number;
  eventsPerSecond: number;
  /** The same load with no tail session open. */
  eventsPerSecondWithoutTail: number;
  acknowledged: number;
  delivered: number;
  latencies: number[];
  dropped: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The generated part of each request body: `batch - 1` events as JSON, without the brackets. */
function bodies(batch: number): string[] {
  const generator = new EventGenerator(7, Date.now() - 60_000, 1);
  return Array.from({ length: BODIES }, () =>
    Array.from({ length: batch - 1 }, () => {
      const { event, host, source, sourcetype, fields } = generator.next();
      return JSON.stringify({ event, host, source, sourcetype, index: 'bench', fields });
    }).join(','),
  );
}

/** An open tail session: calls `onProbe` with each delivered probe's number; `dropped` from its heartbeats. */
function openTail(api: string, onProbe: (probe: number) => void): Promise<{ close: () => void; dropped: () => number }> {
  const q = encodeURIComponent('from bench | where probe > 0 | keep probe');
  return new Promise((resolve, reject) => {
    let dropped = 0;
    const request = http.get(`${api}/tail?count=0&q=${q}`, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`GET /tail answered ${response.statusCode}`));
      let pending = '';
      let ready = false;
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        pending += text;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null') as Record<string, number>;
          if (event === 'result') onProbe(data.probe!);
          else if (event === 'heartbeat') dropped = data.dropped ?? dropped;
          else if (event === 'catchup_done' && !ready) {
            ready = true;
            resolve({ close: () => request.destroy(), dropped: () => dropped });
          }
        }
      });
    });
    request.on('error', reject);
  });
}

function post(api: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${api}/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(body);
  });
}

async function measure(servers: TestServer[], options: TailBenchOptions, withTail: boolean): Promise<Outcome> {
  const generated = bodies(options.batch);
  const sentAt = new Map<number, number>();
  const ackedAt = new Map<number, number>();
  const deliveredAt = new Map<number, number>();
  const tail = withTail
    ? await openTail(servers[0]!.api, (probe) => deliveredAt.set(probe, performance.now()))
    : { close: () => undefined, dropped: () => 0 };
  const intervalMs = (options.batch / options.ingestRate) * 1000;
  const started = performance.now();
  const endAt = started + (WARMUP_SECONDS + options.seconds) * 1000;
  const measureFrom = started + WARMUP_SECONDS * 1000;
  let probe = 0;
  let inFlight = 0;
  let measuredEvents = 0;
  let measuredStart = Number.NaN;
  const inFlightDone: (() => void)[] = [];
  for (let next = started; next < endAt; next += intervalMs) {
    const wait = next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => inFlightDone.push(resolve));
    probe++;
    const id = probe;
    const body = `[${JSON.stringify({ event: `probe ${id}`, index: 'bench', fields: { probe: id } })},${generated[id % BODIES]}]`;
    const server = servers[id % servers.length]!;
    inFlight++;
    const at = performance.now();
    if (at >= measureFrom) {
      if (Number.isNaN(measuredStart)) measuredStart = at;
      sentAt.set(id, at);
    }
    void post(server.api, body).then(
      (status) => {
        inFlight--;
        inFlightDone.shift()?.();
        if (status === 200 && sentAt.has(id)) {
          ackedAt.set(id, performance.now());
          measuredEvents += options.batch;
        }
      },
      () => {
        inFlight--;
        inFlightDone.shift()?.();
      },
    );
  }
  while (inFlight > 0) await new Promise<void>((resolve) => inFlightDone.push(resolve));
  const measuredSeconds = (performance.now() - measuredStart) / 1000;
  // What is still on its way gets a moment to arrive (a probe later than this counts as lost).
  const settle = performance.now() + 2_000;
  while (withTail && performance.now() < settle && [...ackedAt.keys()].some((id) => !deliveredAt.has(id))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  tail.close();
  const latencies = [...ackedAt].flatMap(([id, acked]) => {
    const delivered = deliveredAt.get(id);
    return delivered === undefined ? [] : [Math.max(0, delivered - acked)];
  });
  latencies.sort((a, b) => a - b);
  return {
    nodes: servers.length,
    eventsPerSecond: measuredEvents / measuredSeconds,
    eventsPerSecondWithoutTail: Number.NaN,
    acknowledged: ackedAt.size,
    delivered: latencies.length,
    latencies,
    dropped: tail.dropped(),
  };
}

export async function runTailBench(options: TailBenchOptions): Promise<void> {
  const outcomes: Outcome[] = [];
  for (const nodes of options.nodes) {
    const servers =
      nodes === 1
        ? [await TestServer.start({ set: { 'tail.heartbeat_interval': '1s' } })]
        : await startBenchCluster(nodes, {
            'cluster.replication_factor': 2,
            'tail.heartbeat_interval': '1s',
            'server.ingest_workers': 1,
            'server.query_workers': 1,
            'server.codec_workers': 1,
          });
    try {
      // The same load without a session first: what the machine takes, against which the tail's cost shows.
      const without = await measure(servers, options, false);
      const outcome = await measure(servers, options, true);
      outcomes.push({ ...outcome, eventsPerSecondWithoutTail: without.eventsPerSecond });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  }
  console.log(
    `live tail latency, ingest acknowledgement to SSE delivery (target ${options.ingestRate} events/s, batches of ${options.batch}, ${options.seconds} s measured)`,
  );
  console.log('| nodes | events/s without a tail | events/s with it | probes delivered | p50 ms | p99 ms | max ms | dropped |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const outcome of outcomes) {
    const { latencies } = outcome;
    console.log(
      `| ${outcome.nodes} | ${Math.round(outcome.eventsPerSecondWithoutTail)} | ${Math.round(outcome.eventsPerSecond)} | ${outcome.delivered} of ${outcome.acknowledged} | ` +
        `${percentile(latencies, 50).toFixed(1)} | ${percentile(latencies, 99).toFixed(1)} | ${(latencies.at(-1) ?? Number.NaN).toFixed(1)} | ${outcome.dropped} |`,
    );
  }
}
