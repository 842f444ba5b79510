/**
 * The soak's nodes: real server processes (test/cluster/helpers/clustered-servers.ts) whose every
 * exit is either one the chaos loop caused or one the node made on its own, which is a failure.
 */
import { performance } from 'perf_hooks';
import type { ClusteredServer } from '../../test/cluster/helpers/clustered-servers';
import { processCpuSeconds } from '../bench/process-cpu';
import { call, getJson } from './http';

/** A clean shutdown cuts what is open at http.shutdown_timeout (30 s by default). */
const STOP_TIMEOUT_MS = 45_000;

export interface OwnExit {
  node: string;
  /** Seconds into the run. */
  atSeconds: number;
  code: number | null;
  signal: string | null;
  logTail: string;
}

export class SoakNode {
  /** Set by the chaos loop before it kills or stops the process: the exit that follows is expected. */
  private exitExpected = false;
  /** CPU seconds of the processes this node ran before the current one. */
  private cpuOfEnded = 0;
  private lastCpu = 0;

  constructor(
    readonly clustered: ClusteredServer,
    private readonly ownExits: OwnExit[],
    private readonly originMs: number,
  ) {
    this.watch();
  }

  get id(): string {
    return this.clustered.id;
  }

  get api(): string {
    return this.clustered.api;
  }

  get metricsUrl(): string {
    return `${this.clustered.server.url}/metrics`;
  }

  get pid(): number | undefined {
    return this.clustered.server.process.pid;
  }

  get running(): boolean {
    const process = this.clustered.server.process;
    return process.exitCode === null && process.signalCode === null;
  }

  /** CPU seconds of every process this node ran, the current one as last sampled. */
  cpuSeconds(): number {
    return this.cpuOfEnded + this.lastCpu;
  }

  sampleCpu(): void {
    // A process that ended between the check and the read reads 0: its CPU so far stands.
    if (this.running) this.lastCpu = Math.max(this.lastCpu, processCpuSeconds(this.pid));
  }

  /** kill -9. */
  async kill(): Promise<void> {
    this.sampleCpu();
    this.exitExpected = true;
    await this.clustered.server.kill();
  }

  /** SIGTERM; answers the exit code (a clean shutdown exits 0), or `hung` (then kill -9) when the process outlives http.shutdown_timeout. */
  async stop(): Promise<number | null | 'hung'> {
    this.exitExpected = true;
    this.sampleCpu();
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), STOP_TIMEOUT_MS)));
    const code = await Promise.race([this.clustered.server.stop(), hung]);
    clearTimeout(timer);
    if (code === 'hung') await this.clustered.server.kill();
    return code;
  }

  signal(name: 'SIGSTOP' | 'SIGCONT'): void {
    this.clustered.server.process.kill(name);
  }

  /** Starts the node again on its ports and data dir. */
  async start(): Promise<void> {
    this.cpuOfEnded += this.lastCpu;
    this.lastCpu = 0;
    this.exitExpected = false;
    await this.clustered.restart();
    this.watch();
  }

  private watch(): void {
    const server = this.clustered.server;
    void server.exited().then((code) => {
      if (this.exitExpected || this.clustered.server !== server) return;
      this.ownExits.push({
        node: this.id,
        atSeconds: (performance.now() - this.originMs) / 1000,
        code,
        signal: server.process.signalCode,
        logTail: server.log.slice(-3000),
      });
    });
  }
}

/** The sum of a Prometheus gauge over all its label sets (`trawl_hints_pending{target=...}`). */
export async function gaugeSum(node: SoakNode, name: string): Promise<number> {
  const outcome = await call(node.metricsUrl, { timeoutMs: 5_000 });
  if (outcome.kind !== 'answered' || outcome.status !== 200) throw new Error(`${node.id} /metrics: no answer`);
  let sum = 0;
  for (const line of outcome.text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Whether `node` sees every one of `ids` up. */
export async function seesAllUp(node: SoakNode, ids: readonly string[]): Promise<boolean> {
  const status = (await getJson(`${node.api}/cluster/status`)).data;
  const up = new Set(
    ((status?.nodes ?? []) as { id: string; state: string }[]).filter((each) => each.state === 'up').map((each) => each.id),
  );
  return ids.every((id) => up.has(id));
}

/**
 * Waits until every node runs, sees all up, and no node holds a hint: the state in which the next
 * fault may come (never two nodes down at once) and the final checks run. False after `timeoutMs`.
 */
export async function waitRecovered(nodes: readonly SoakNode[], timeoutMs: number): Promise<boolean> {
  const ids = nodes.map((node) => node.id);
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      let recovered = nodes.every((node) => node.running);
      for (const node of nodes) if (recovered) recovered = await seesAllUp(node, ids);
      for (const node of nodes) if (recovered) recovered = (await gaugeSum(node, 'trawl_hints_pending')) === 0;
      if (recovered) return true;
    } catch {
      // a node not answering yet: ask again
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}
