/**
 * `npm run bench -- cluster [--nodes N] [--replication N] [--events N] [--batch N] [--concurrency N]`
 *
 * Writes through a cluster of real server processes on loopback (3 nodes, replication 2 by
 * default): generated events posted to one node, which sends each owner its share. Prints the
 * acknowledged rate, the CPU per event summed over every node and each node's part of it, and the
 * copies stored (the sum of the nodes' own counts over the events sent). On a 2-core machine the
 * nodes share the cores: the figures show what a write costs the cluster, not what N machines do.
 * The events are timed 19 to 20 hours ahead, past every ring epoch the new cluster decides at its
 * start, so the ring of all the nodes places them (a node's epoch starts a bucket or two ahead).
 */
import { performance } from 'perf_hooks';
import { request } from '../../test/helpers/server';
import { startClusteredServers, stopClusteredServers, type ClusteredServer } from '../../test/cluster/helpers/clustered-servers';
import { EventGenerator } from './generate';
import { processCpuSeconds } from './process-cpu';

export interface ClusterBenchOptions {
  nodes: number;
  replication: number;
  events: number;
  batch: number;
  concurrency: number;
}

function bodiesOf(count: number, batch: number): Buffer[] {
  const generator = new EventGenerator(42, Date.now() + 19 * 3600_000, 3600_000 / count);
  const bodies: Buffer[] = [];
  for (let produced = 0; produced < count; produced += batch) {
    const events = [];
    for (let i = 0; i < Math.min(batch, count - produced); i++) events.push(generator.next());
    bodies.push(Buffer.from(JSON.stringify(events)));
  }
  return bodies;
}

/** Posts every body to `node`, `concurrency` at a time, retrying a 503 after a pause; counts the retries. */
async function postAll(node: ClusteredServer, bodies: readonly Buffer[], concurrency: number): Promise<number> {
  let next = 0;
  let retries = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const response = await request(`${node.api}/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      if (response.status === 503) {
        next--;
        retries++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${response.text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return retries;
}

export async function runClusterBench(options: ClusterBenchOptions): Promise<void> {
  const bodies = bodiesOf(options.events, options.batch);
  // The default heartbeat and failure timeout, not the tests' fast ones: heartbeats cost what they cost a real cluster.
  const set = { 'cluster.replication_factor': options.replication, 'cluster.heartbeat_interval': '1s', 'cluster.failure_timeout': '5s' };
  const nodes = await startClusteredServers(options.nodes, { set });
  try {
    const cpuBefore = nodes.map((node) => processCpuSeconds(node.server.process.pid));
    const started = performance.now();
    const retries = await postAll(nodes[0]!, bodies, options.concurrency);
    const seconds = (performance.now() - started) / 1000;
    const cpu = nodes.map((node, i) => processCpuSeconds(node.server.process.pid) - cpuBefore[i]!);
    const stored = await Promise.all(nodes.map(async (node) => (await request(`${node.api}/stats`)).body.data.total_events as number));
    const totalCpu = cpu.reduce((sum, each) => sum + each, 0);

    const row = (name: string, value: string): void => console.log(`| ${name.padEnd(44)} | ${value.padStart(16)} |`);
    console.log(`\ncluster write benchmark: ${options.nodes} nodes, replication ${options.replication}, ${options.events} events posted to node1, batches of ${options.batch}, ${options.concurrency} in flight`);
    console.log(`| ${'measure'.padEnd(44)} | ${'value'.padStart(16)} |`);
    console.log(`|${'-'.repeat(46)}|${'-'.repeat(18)}|`);
    row('events/s (POST /ingest, acknowledged)', (options.events / seconds).toFixed(0));
    row('CPU per event, all nodes, µs', ((totalCpu * 1e6) / options.events).toFixed(2));
    nodes.forEach((node, i) => row(`  ${node.id}: CPU per event, µs / events held`, `${((cpu[i]! * 1e6) / options.events).toFixed(2)} / ${stored[i]}`));
    row('copies held (sum of nodes / events sent)', (stored.reduce((sum, each) => sum + each, 0) / options.events).toFixed(3));
    row('requests retried after 503', String(retries));
  } finally {
    await stopClusteredServers(nodes);
  }
}
