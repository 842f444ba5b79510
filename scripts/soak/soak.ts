/**
 * The soak: 3 real nodes at replication 2 with short heartbeat and failure intervals, writers and
 * query loops for `minutes`, a chaos loop of kill -9, SIGSTOP and clean restarts one node at a time;
 * then, every node back and no hint pending, the final checks (verdict.ts). Loopback only, every
 * loop bounded by the run's end.
 */
import { performance } from 'perf_hooks';
import { startClusteredServers } from '../../test/cluster/helpers/clustered-servers';
import { prng } from '../bench/generate';
import { runChaos, startAgain, type ChaosRecord } from './chaos';
import { SoakNode, waitRecovered, type OwnExit } from './fleet';
import { Ledger } from './ledger';
import type { SoakOptions } from './options';
import { judgeQueries, runQueryLoop, type QueryRecord } from './queries';
import { judgeRss, ResourceWatch } from './resources';
import { summaryTable, type SoakOutcome } from './summary';
import { judgeStats, judgeThrough, type NodeVerdict } from './verdict';
import { runWriter } from './writers';

export const DEFAULT_SOAK: Omit<SoakOptions, 'minutes' | 'log'> = {
  writers: 3,
  queryLoops: 2,
  faults: true,
  seed: 1,
  rss: { limitMb: 2048, growthMb: 768, minLifeSeconds: 180 },
};

export interface SoakReport {
  passed: boolean;
  failures: string[];
  /** The answers that said meta.partial (no failure). */
  partialAnswers: string[];
  /** The summary table, printable. */
  table: string;
}

/** After the run's end, how long a writer keeps sending the batch at hand, and the cluster may take to recover. */
const DRAIN_MS = 120_000;
const RECOVERY_MS = 90_000;

interface RunRecord {
  ledger: Ledger;
  records: QueryRecord[];
  chaos: ChaosRecord;
}

/** Writers, query loops and the chaos loop for `options.minutes`; returns once each has stopped. */
async function run(nodes: readonly SoakNode[], options: SoakOptions, log: (line: string) => void): Promise<RunRecord> {
  const endMs = performance.now() + options.minutes * 60_000;
  const running = (): boolean => performance.now() < endMs;
  const apis = (): string[] => nodes.map((node) => node.api);
  const nodeIds = (): string[] => nodes.map((node) => node.id);
  const ledger = new Ledger();
  const records: QueryRecord[] = [];
  const timeBase = Math.floor(Date.now() / 1000) + 20 * 3600;
  const progress = setInterval(() => {
    const attempts = [...ledger.batches.values()].flatMap((batch) => batch.attempts);
    const count = (outcome: string): number => attempts.filter((attempt) => attempt.outcome === outcome).length;
    log(
      `${ledger.ackedEvents()} events acknowledged; attempts refused ${count('refused')}, lost ${count('lost')}; ${records.length} queries`,
    );
  }, 15_000);
  try {
    log(
      `running for ${options.minutes} minute(s): ${options.writers} writers, ${options.queryLoops} query loops${options.faults ? ', chaos' : ', no faults'}`,
    );
    const writers = Array.from({ length: options.writers }, (_, i) =>
      runWriter(
        {
          name: `w${i + 1}`,
          minEvents: 50,
          maxEvents: 400,
          intervalMs: 300,
          apis,
          nodeIds,
          random: prng(options.seed * 1000 + i),
          timeBase,
        },
        ledger,
        running,
        () => endMs + DRAIN_MS,
      ),
    );
    const queryLoops = Array.from({ length: options.queryLoops }, (_, i) =>
      runQueryLoop({ apis, nodeIds, random: prng(options.seed * 2000 + i), pauseMs: 250 }, ledger, records, running),
    );
    const chaosOptions = {
      random: prng(options.seed),
      pauseMs: [2_000, 6_000] as [number, number],
      downMs: [2_000, 6_000] as [number, number],
      recoveryTimeoutMs: RECOVERY_MS,
      log,
    };
    const chaos = await runChaos(nodes, chaosOptions, () => options.faults && running());
    await Promise.all([...writers, ...queryLoops]);
    return { ledger, records, chaos };
  } finally {
    clearInterval(progress);
  }
}

/** The final checks through every node, as failures and the outcome the summary prints. */
async function check(
  nodes: readonly SoakNode[],
  { ledger, records, chaos }: RunRecord,
  resources: ResourceWatch,
  ownExits: OwnExit[],
  options: SoakOptions,
  originMs: number,
): Promise<{ failures: string[]; outcome: SoakOutcome }> {
  const failures = [...chaos.failures, ...ledger.unexpected.map((line) => `unexpected ingest answer: ${line}`)];
  const verdicts: NodeVerdict[] = [];
  for (const node of nodes) {
    const failed = (error: Error): NodeVerdict => ({
      node: node.id,
      counted: NaN,
      missing: NaN,
      duplicates: NaN,
      inDoubtCopies: NaN,
      failures: [`the final check through ${node.id} failed: ${error.message}`],
    });
    verdicts.push(await judgeThrough(node, ledger).catch(failed));
  }
  for (const verdict of verdicts) failures.push(...verdict.failures);
  const stats = await judgeStats(nodes, ledger).catch((error: Error) => {
    failures.push(`the nodes' /stats: ${error.message}`);
    return { held: NaN, least: 0, most: 0 };
  });
  if (Number.isFinite(stats.held) && !(stats.held >= stats.least && stats.held <= stats.most)) {
    failures.push(
      `the nodes' /stats hold ${stats.held} events in all; twice the acknowledged events is ${stats.least}${stats.most > stats.least ? `, and lost answers allow up to ${stats.most}` : ''}`,
    );
  }
  const queries = judgeQueries(records, ledger, originMs);
  failures.push(...queries.silentUndercounts.map((line) => `silent undercount: ${line}`));
  failures.push(...queries.overcounts.map((line) => `overcount: ${line}`));
  for (const exit of ownExits)
    failures.push(
      `${exit.node} exited on its own at ${exit.atSeconds.toFixed(1)}s (code ${exit.code}, signal ${exit.signal}); its log ends:\n${exit.logTail}`,
    );
  resources.stop();
  for (const node of nodes) failures.push(...judgeRss(node.id, resources.samples.get(node.id)!, options.rss));
  const queryTimesMs = records.filter((record) => record.outcome === 'ok').map((record) => record.answeredMs - record.sentMs);
  return { failures, outcome: { options, ledger, chaos, queries, verdicts, stats, queryTimesMs, ownExits, resources, nodes } };
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const originMs = performance.now();
  const seconds = (): string => ((performance.now() - originMs) / 1000).toFixed(1).padStart(6);
  const log = (line: string): void => options.log(`[${seconds()}s] ${line}`);
  log(`starting 3 nodes at replication 2 (seed ${options.seed})`);
  // One worker of each kind per node: the three share the machine's cores.
  const clustered = await startClusteredServers(3, {
    set: { 'cluster.replication_factor': 2, 'server.ingest_workers': 1, 'server.query_workers': 1, 'server.codec_workers': 1 },
  });
  const ownExits: OwnExit[] = [];
  const nodes = clustered.map((each) => new SoakNode(each, ownExits, originMs));
  const resources = new ResourceWatch(nodes, originMs);
  try {
    resources.start(2_000);
    const record = await run(nodes, options, log);
    log('the run is over: starting any node that is down, waiting until every node is up and no hint is pending');
    const restarts: string[] = [];
    for (const node of nodes.filter((each) => !each.running)) await startAgain(node, restarts);
    const recovered = await waitRecovered(nodes, RECOVERY_MS);
    log('checking every acknowledged event through every node');
    const { failures, outcome } = await check(nodes, record, resources, ownExits, options, originMs);
    failures.push(...restarts);
    if (!recovered) failures.push(`the cluster did not recover within ${RECOVERY_MS / 1000} s after the run`);
    const codes = await Promise.all(nodes.map((node) => node.stop()));
    for (const [i, node] of nodes.entries()) if (codes[i] !== 0) failures.push(`${node.id} exited ${codes[i]} on SIGTERM at the end`);
    return { passed: failures.length === 0, failures, partialAnswers: outcome.queries.partial, table: summaryTable(outcome) };
  } finally {
    resources.stop();
    for (const node of nodes) {
      if (!node.running) continue;
      node.signal('SIGCONT');
      await node.kill();
    }
  }
}
