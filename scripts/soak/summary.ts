/** The soak's summary table (Markdown, as the benchmarks print theirs). */
import type { ChaosRecord } from './chaos';
import type { OwnExit, SoakNode } from './fleet';
import { batchStanding, type Ledger } from './ledger';
import type { SoakOptions } from './options';
import type { QueryJudgement } from './queries';
import { rssSeries, type ResourceWatch } from './resources';
import type { NodeVerdict, StatsVerdict } from './verdict';

export interface SoakOutcome {
  options: SoakOptions;
  ledger: Ledger;
  chaos: ChaosRecord;
  queries: QueryJudgement;
  verdicts: NodeVerdict[];
  stats: StatsVerdict;
  /** How long each answered query took. */
  queryTimesMs: number[];
  ownExits: OwnExit[];
  resources: ResourceWatch;
  nodes: readonly SoakNode[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
}

function most(values: number[]): number {
  return values.reduce((top, value) => Math.max(top, value), -Infinity);
}

/** The longest wait for the next acknowledgement while writers wrote, in seconds. */
function longestSilence(ackedAtMs: number[]): number {
  const sorted = [...ackedAtMs].sort((a, b) => a - b);
  let longest = 0;
  for (let i = 1; i < sorted.length; i++) longest = Math.max(longest, sorted[i]! - sorted[i - 1]!);
  return longest / 1000;
}

/** A figure, or `?` where a final check could not get it. */
const shown = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '?');

export function summaryTable(outcome: SoakOutcome): string {
  const { ledger, chaos, queries, verdicts, stats } = outcome;
  const batches = [...ledger.batches.values()];
  const attempts = batches.flatMap((batch) => batch.attempts);
  const acknowledged = batches.filter((batch) => batchStanding(batch).acknowledged === 1);
  const inDoubt = batches.filter((batch) => batchStanding(batch).lost > 0);
  const perNode = (value: (verdict: NodeVerdict) => number): string => verdicts.map((verdict) => shown(value(verdict))).join(' / ');
  const acks = attempts.filter((a) => a.outcome === 'acknowledged');
  const ingestMs = acks.map((a) => a.endedMs - a.startedMs);
  const queryMs = outcome.queryTimesMs;
  const recovery = chaos.recoverySeconds;
  const errors = [...queries.errors].map(([detail, count]) => `${count} x ${detail}`).join(', ');
  const lines = [
    `soak: 3 nodes, replication 2, ${outcome.options.minutes} minute(s), ${outcome.options.writers} writers, ${outcome.options.queryLoops} query loops, seed ${outcome.options.seed}`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| batches acknowledged (of sent) | ${acknowledged.length} (of ${batches.length}) |`,
    `| events acknowledged | ${ledger.ackedEvents()} |`,
    `| attempts: acknowledged / refused (429, 503, refused connection) / answer lost | ${attempts.filter((a) => a.outcome === 'acknowledged').length} / ${attempts.filter((a) => a.outcome === 'refused').length} / ${attempts.filter((a) => a.outcome === 'lost').length} |`,
    `| batches with an answer lost (each event may be held up to once more per lost answer) | ${inDoubt.length} |`,
    `| events counted through ${verdicts.map((v) => v.node).join(' / ')} | ${perNode((v) => v.counted)} |`,
    `| duplicates: copies beyond the writers' record, through each node | ${perNode((v) => v.duplicates)} |`,
    `| missing acknowledged events, through each node | ${perNode((v) => v.missing)} |`,
    `| copies of batches whose answer was lost (allowed), through each node | ${perNode((v) => v.inDoubtCopies)} |`,
    `| sum of the nodes' /stats total_events (must be) | ${shown(stats.held)} (${stats.least === stats.most ? stats.least : `${stats.least}..${stats.most}`}) |`,
    `| query answers: 200 / partial / other status / no answer | ${queries.answered} / ${queries.partial.length} / ${[...queries.errors.values()].reduce((sum, n) => sum + n, 0)} / ${queries.unanswered} |`,
    ...(errors === '' ? [] : [`| query answers of another status | ${errors} |`]),
    `| silent undercounts | ${queries.silentUndercounts.length} |`,
    `| overcounts | ${queries.overcounts.length} |`,
    `| acknowledged ingest requests, ms: median / max | ${shown(median(ingestMs))} / ${shown(most(ingestMs))} |`,
    `| longest time without an acknowledgement, s | ${shown(longestSilence(acks.map((a) => a.endedMs)), 1)} |`,
    `| query answers, ms: median / max | ${shown(median(queryMs))} / ${shown(most(queryMs))} |`,
    `| faults: kill -9 / SIGSTOP / clean restart | ${chaos.faults['kill -9']} / ${chaos.faults.SIGSTOP} / ${chaos.faults.restart} |`,
    `| recovery after a fault (all up, no hint pending), s: median / max | ${shown(median(recovery), 1)} / ${shown(most(recovery), 1)} |`,
    `| nodes that exited on their own | ${outcome.ownExits.length} |`,
    '',
  ];
  const spanSeconds = Math.max(10, Math.round((outcome.options.minutes * 60) / 20));
  lines.push(`| node | RSS min MB | RSS max MB | CPU s | RSS, highest of each ${spanSeconds} s (MB) |`, '|---|---:|---:|---:|---|');
  for (const node of outcome.nodes) {
    const samples = outcome.resources.samples.get(node.id)!;
    const mbs = samples.map((sample) => sample.mb);
    lines.push(
      `| ${node.id} | ${Math.min(...mbs).toFixed(0)} | ${Math.max(...mbs).toFixed(0)} | ${node.cpuSeconds().toFixed(1)} | ${rssSeries(samples, spanSeconds)} |`,
    );
  }
  return lines.join('\n');
}
