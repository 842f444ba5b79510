/**
 * The chaos loop: one fault at a time on a random node (kill -9 then a start a few seconds later,
 * SIGSTOP for a few seconds then SIGCONT, or a clean restart), and before the next one the cluster
 * recovers (every node up in every node's view, no hint pending): never two nodes down at once, so
 * replication 2 keeps every key answerable.
 */
import { performance } from 'perf_hooks';
import { waitRecovered, type SoakNode } from './fleet';

export type Fault = 'kill -9' | 'SIGSTOP' | 'restart';

export interface ChaosOptions {
  random: () => number;
  /** Healthy time between one fault's recovery and the next fault, ms. */
  pauseMs: [number, number];
  /** How long a killed node stays down, and a stopped node stopped, ms. */
  downMs: [number, number];
  recoveryTimeoutMs: number;
  log: (line: string) => void;
}

export interface ChaosRecord {
  faults: Record<Fault, number>;
  /** Nodes that exited on their own, started again by the loop. */
  revived: number;
  /** From each node's return (or SIGCONT) until every node saw all up and no hint was pending. */
  recoverySeconds: number[];
  failures: string[];
}

function between([least, most]: [number, number], random: () => number): number {
  return least + random() * (most - least);
}

/** Sleeps `ms`, or less once `running()` turns false. */
async function pause(ms: number, running: () => boolean): Promise<void> {
  const until = performance.now() + ms;
  while (running() && performance.now() < until)
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, until - performance.now())));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts a node that is down; a start that fails is tried twice more. */
export async function startAgain(node: SoakNode, failures: string[]): Promise<boolean> {
  for (let tries = 1; ; tries++) {
    try {
      await node.start();
      return true;
    } catch (error) {
      failures.push(`${node.id} did not start (try ${tries}): ${(error as Error).message.slice(0, 1000)}`);
      if (tries === 3) return false;
    }
  }
}

async function inflict(fault: Fault, node: SoakNode, options: ChaosOptions, record: ChaosRecord): Promise<boolean> {
  const down = between(options.downMs, options.random);
  record.faults[fault]++;
  options.log(`${fault} ${node.id}${fault === 'restart' ? '' : ` for ${(down / 1000).toFixed(1)} s`}`);
  if (fault === 'SIGSTOP') {
    node.signal('SIGSTOP');
    await sleep(down);
    node.signal('SIGCONT');
    return true;
  }
  if (fault === 'kill -9') {
    await node.kill();
    await sleep(down);
  } else {
    const code = await node.stop();
    if (code !== 0) record.failures.push(`${node.id} exited ${code} on SIGTERM`);
  }
  return startAgain(node, record.failures);
}

/** Inflicts faults until `running()` turns false; the last one recovers before it returns. */
export async function runChaos(nodes: readonly SoakNode[], options: ChaosOptions, running: () => boolean): Promise<ChaosRecord> {
  const record: ChaosRecord = { faults: { 'kill -9': 0, SIGSTOP: 0, restart: 0 }, revived: 0, recoverySeconds: [], failures: [] };
  // The kinds come in shuffled rounds of all three, so that even a short run meets each.
  let deck: Fault[] = [];
  for (;;) {
    await pause(between(options.pauseMs, options.random), running);
    if (!running()) return record;
    const fallen = nodes.filter((each) => !each.running);
    if (fallen.length > 0) {
      for (const node of fallen) {
        options.log(`${node.id} exited on its own: starting it again`);
        record.revived++;
        if (!(await startAgain(node, record.failures))) return record;
      }
      if (!(await recovered(nodes, options, record, 'the start of a node that exited on its own'))) return record;
      continue;
    }
    if (deck.length === 0) deck = shuffled(['kill -9', 'SIGSTOP', 'restart'], options.random);
    const fault = deck.pop()!;
    const node = nodes[Math.floor(options.random() * nodes.length)]!;
    if (!(await inflict(fault, node, options, record))) return record;
    if (!(await recovered(nodes, options, record, `${fault} of ${node.id}`))) return record;
  }
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function recovered(nodes: readonly SoakNode[], options: ChaosOptions, record: ChaosRecord, after: string): Promise<boolean> {
  const started = performance.now();
  if (await waitRecovered(nodes, options.recoveryTimeoutMs)) {
    const seconds = (performance.now() - started) / 1000;
    record.recoverySeconds.push(seconds);
    options.log(`recovered in ${seconds.toFixed(1)} s: every node up, no hint pending`);
    return true;
  }
  record.failures.push(`the cluster did not recover within ${options.recoveryTimeoutMs / 1000} s after ${after}: no more faults`);
  return false;
}
