/**
 * Query loops: `count()`, `count() by writer`, `head` and `count()` of an index glob (placed from
 * the index names the nodes reported, refused and asked again when one holds a name not listed)
 * through random nodes while the writers write and the chaos loop kills. Each answer is kept with
 * what the writers had acknowledged when the query was sent; after the run, each is judged
 * against the writers' record.
 */
import { performance } from 'perf_hooks';
import { call } from './http';
import type { Ledger } from './ledger';
import { SOAK_INDEX } from './writers';

export type QueryKind = 'count' | 'count by writer' | 'head' | 'count of a glob';

const QUERIES: Record<QueryKind, string> = {
  count: `from ${SOAK_INDEX} | stats count()`,
  'count by writer': `from ${SOAK_INDEX} | stats count() by writer`,
  head: `from ${SOAK_INDEX} | head 5`,
  'count of a glob': `from ${SOAK_INDEX}* | stats count()`,
};

/** Every query asks all time: the events lie hours ahead. */
export const ALL_TIME = { from: '1970-01-01T00:00:00Z', to: '2200-01-01T00:00:00Z' };

export interface QueryRecord {
  kind: QueryKind;
  node: string;
  sentMs: number;
  answeredMs: number;
  /** Events acknowledged before the query was sent, in all and by writer: an answer must count them. */
  ackedBefore: number;
  ackedBeforeByWriter: Map<string, number>;
  /** `ok` (200), `error` (another status), or no answer (`lost`, `unreachable`). */
  outcome: 'ok' | 'error' | 'lost' | 'unreachable';
  detail: string;
  partial: boolean;
  /** meta.missing_keys of a partial answer. */
  missingKeys: number;
  /** count (of the index or a glob): the total; count by writer: the sum; head: the events returned. */
  counted: number;
  countedByWriter: Map<string, number>;
}

export interface QueryLoopOptions {
  apis: () => string[];
  nodeIds: () => string[];
  random: () => number;
  pauseMs: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function ask(kind: QueryKind, api: string, node: string, ledger: Ledger): Promise<QueryRecord> {
  const sentMs = performance.now();
  const record: QueryRecord = {
    kind,
    node,
    sentMs,
    answeredMs: sentMs,
    ackedBefore: ledger.ackedEvents(),
    ackedBeforeByWriter: ledger.ackedEventsByWriter(),
    outcome: 'ok',
    detail: '',
    partial: false,
    missingKeys: 0,
    counted: 0,
    countedByWriter: new Map(),
  };
  const answer = await call(`${api}/query`, {
    method: 'POST',
    body: JSON.stringify({ q: QUERIES[kind], ...ALL_TIME, limit: 100 }),
    timeoutMs: 60_000,
  });
  record.answeredMs = performance.now();
  if (answer.kind !== 'answered') return { ...record, outcome: answer.kind, detail: answer.error };
  if (answer.status !== 200)
    return { ...record, outcome: 'error', detail: `${answer.status} ${answer.body?.error?.code ?? answer.text.slice(0, 100)}` };
  record.partial = answer.body.meta?.partial === true;
  record.missingKeys = answer.body.meta?.missing_keys ?? 0;
  const data = answer.body.data;
  if (data.type === 'job') return { ...record, outcome: 'error', detail: '202 (still running after the sync window)' };
  if (kind === 'count' || kind === 'count of a glob') record.counted = data.rows[0][0];
  if (kind === 'count by writer') {
    for (const [writer, count] of data.rows as [string, number][]) record.countedByWriter.set(writer, count);
    record.counted = [...record.countedByWriter.values()].reduce((sum, count) => sum + count, 0);
  }
  if (kind === 'head') record.counted = data.events.length;
  return record;
}

/** Asks queries in turn through random nodes until `running()` turns false. */
export async function runQueryLoop(
  options: QueryLoopOptions,
  ledger: Ledger,
  records: QueryRecord[],
  running: () => boolean,
): Promise<void> {
  const kinds = Object.keys(QUERIES) as QueryKind[];
  for (let turn = 0; running(); turn++) {
    const pick = Math.floor(options.random() * options.apis().length);
    records.push(await ask(kinds[turn % kinds.length]!, options.apis()[pick]!, options.nodeIds()[pick]!, ledger));
    await sleep(options.pauseMs);
  }
}

export interface QueryJudgement {
  answered: number;
  /** Answers that said meta.partial: honest, so no failure, but worth a look when no node was down. */
  partial: string[];
  errors: Map<string, number>;
  unanswered: number;
  /** Answers without meta.partial that counted fewer than the events acknowledged before they were sent. */
  silentUndercounts: string[];
  /** Answers that counted more than every attempt sent before they were answered could have stored. */
  overcounts: string[];
}

/** `originMs`: the run's start, so that times read as seconds into the run. */
function explain(record: QueryRecord, originMs: number, what: string): string {
  return `${record.kind} through ${record.node} sent at ${((record.sentMs - originMs) / 1000).toFixed(1)}s: ${what}`;
}

/** Judges every answer against the writers' record (complete once the writers have stopped). */
export function judgeQueries(records: readonly QueryRecord[], ledger: Ledger, originMs: number): QueryJudgement {
  const judgement: QueryJudgement = { answered: 0, partial: [], errors: new Map(), unanswered: 0, silentUndercounts: [], overcounts: [] };
  for (const record of records) {
    if (record.outcome === 'lost' || record.outcome === 'unreachable') {
      judgement.unanswered++;
      continue;
    }
    if (record.outcome === 'error') {
      judgement.errors.set(record.detail, (judgement.errors.get(record.detail) ?? 0) + 1);
      continue;
    }
    judgement.answered++;
    if (record.partial)
      judgement.partial.push(
        explain(
          record,
          originMs,
          `meta.partial, ${record.missingKeys} keys missing, ${record.counted} counted of ${record.ackedBefore} acknowledged`,
        ),
      );
    if (record.kind === 'head') {
      const least = Math.min(5, record.ackedBefore);
      if (!record.partial && record.counted < least)
        judgement.silentUndercounts.push(explain(record, originMs, `${record.counted} events, ${least} expected`));
      continue;
    }
    const most = ledger.mostStoredBefore(record.answeredMs);
    if (record.counted > most)
      judgement.overcounts.push(explain(record, originMs, `counted ${record.counted}, at most ${most} could be stored`));
    if (!record.partial && record.counted < record.ackedBefore) {
      judgement.silentUndercounts.push(
        explain(
          record,
          originMs,
          `counted ${record.counted} of ${record.ackedBefore} acknowledged before it was sent, without meta.partial`,
        ),
      );
      continue;
    }
    if (record.kind !== 'count by writer') continue;
    for (const [writer, acked] of record.ackedBeforeByWriter) {
      const counted = record.countedByWriter.get(writer) ?? 0;
      if (!record.partial && counted < acked)
        judgement.silentUndercounts.push(
          explain(
            record,
            originMs,
            `writer ${writer}: counted ${counted} of ${acked} acknowledged before it was sent, without meta.partial`,
          ),
        );
      const writerMost = ledger.mostStoredBefore(record.answeredMs, writer);
      if (counted > writerMost)
        judgement.overcounts.push(explain(record, originMs, `writer ${writer}: counted ${counted}, at most ${writerMost} could be stored`));
    }
  }
  return judgement;
}
