/**
 * Writers: each posts batches of uniquely tagged events to a random node, as a shipper with a list
 * of nodes would, and keeps posting the same batch until it is acknowledged. A refused batch (429,
 * 503, a refused connection) and one whose answer was lost (a kill) are sent again unchanged.
 */
import { performance } from 'perf_hooks';
import { call } from './http';
import type { AttemptOutcome, Batch, Ledger } from './ledger';

export const SOAK_INDEX = 'soak';

/** dc() is exact up to 1,024 distinct values: the final check counts each batch's ids with it. */
export const MAX_BATCH_EVENTS = 1_000;

export interface WriterOptions {
  name: string;
  /** Each writer's batches hold between these many events. */
  minEvents: number;
  maxEvents: number;
  /** Least time from one batch's first attempt to the next's: bounds the load on a shared machine. */
  intervalMs: number;
  /** The nodes' API base URLs, looked up at each attempt (a restart keeps them). */
  apis: () => string[];
  nodeIds: () => string[];
  random: () => number;
  /** Event times: from this Unix second over the next two hours (past the ring epochs the cluster decided at its start). */
  timeBase: number;
}

const HOSTS = 8;
const SOURCES = ['api', 'worker', 'cron'];
const PAUSE_AFTER_FAILURE_MS = 200;

function eventsOf(batch: Batch, options: WriterOptions): unknown[] {
  return Array.from({ length: batch.size }, (_, n) => ({
    event: `soak ${batch.id}.${n}`,
    time: options.timeBase + Math.floor(options.random() * 7200),
    index: SOAK_INDEX,
    host: `soak-host-${Math.floor(options.random() * HOSTS)}`,
    source: SOURCES[Math.floor(options.random() * SOURCES.length)]!,
    fields: { id: `${batch.id}.${n}`, writer: batch.writer, batch: batch.id, n },
  }));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One attempt's outcome for the ledger; an answer no shipper expects is also noted in `unexpected`. */
function judge(
  outcome: Awaited<ReturnType<typeof call>>,
  size: number,
  unexpected: string[],
  where: string,
): { outcome: AttemptOutcome; detail: string } {
  if (outcome.kind === 'unreachable') return { outcome: 'refused', detail: `unreachable: ${outcome.error}` };
  if (outcome.kind === 'lost') return { outcome: 'lost', detail: `lost: ${outcome.error}` };
  const code = outcome.body?.error?.code ?? '';
  if (outcome.status === 200) {
    const data = outcome.body?.data;
    if (data?.accepted === size && data?.failed === 0) return { outcome: 'acknowledged', detail: '200' };
    unexpected.push(`${where}: 200 that did not accept every event: ${outcome.text.slice(0, 300)}`);
    return { outcome: 'lost', detail: `200 ${outcome.text.slice(0, 100)}` };
  }
  if (outcome.status === 429 || outcome.status === 503) return { outcome: 'refused', detail: `${outcome.status} ${code}` };
  unexpected.push(`${where}: ${outcome.status} ${outcome.text.slice(0, 300)}`);
  return { outcome: 'lost', detail: `${outcome.status} ${code}` };
}

/**
 * Posts batches until `running()` turns false, then finishes the batch at hand: it is sent until
 * acknowledged or until `drainDeadline()` (performance.now() ms) passes.
 */
export async function runWriter(
  options: WriterOptions,
  ledger: Ledger,
  running: () => boolean,
  drainDeadline: () => number,
): Promise<void> {
  if (options.maxEvents > MAX_BATCH_EVENTS) throw new Error(`a batch holds at most ${MAX_BATCH_EVENTS} events (got ${options.maxEvents})`);
  for (let seq = 1; running(); seq++) {
    const started = performance.now();
    const size = options.minEvents + Math.floor(options.random() * (options.maxEvents - options.minEvents + 1));
    const batch = ledger.open(`${options.name}.${seq}`, options.name, size);
    const body = JSON.stringify(eventsOf(batch, options));
    for (;;) {
      const pick = Math.floor(options.random() * options.apis().length);
      const node = options.nodeIds()[pick]!;
      const startedMs = performance.now();
      const answer = await call(`${options.apis()[pick]}/ingest`, { method: 'POST', body, timeoutMs: 60_000 });
      const { outcome, detail } = judge(answer, size, ledger.unexpected, `batch ${batch.id} through ${node}`);
      ledger.record(batch, { node, startedMs, endedMs: performance.now(), outcome, detail });
      if (outcome === 'acknowledged') break;
      if (!running() && performance.now() > drainDeadline()) break;
      await sleep(PAUSE_AFTER_FAILURE_MS);
    }
    const rest = options.intervalMs - (performance.now() - started);
    if (rest > 0 && running()) await sleep(rest);
  }
}
