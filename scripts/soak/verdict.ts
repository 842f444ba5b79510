/**
 * The final checks, once every node is back and no hint is pending: through every node, each batch's
 * events are counted (copies, distinct ids) and held against the writers' record, and the nodes'
 * own `/stats` must hold every event twice (replication 2).
 *
 * A batch acknowledged at its first answered attempt, or after refusals only, must show each of its
 * events exactly once; a batch never acknowledged whose attempts were all refused must show none.
 * An attempt whose answer was lost may have stored any part of the batch once, so a batch with L
 * such attempts shows each event between A (1 if acknowledged) and A + L times.
 */
import { batchStanding, type Batch, type Ledger } from './ledger';
import { call } from './http';
import { ALL_TIME } from './queries';
import { SOAK_INDEX } from './writers';
import type { SoakNode } from './fleet';

export interface NodeVerdict {
  node: string;
  /** count() through this node. */
  counted: number;
  /** Acknowledged events not found. */
  missing: number;
  /** Copies beyond what the writers' record allows (every copy of a refused batch among them). */
  duplicates: number;
  /** Copies of batches whose answer was lost, within what those attempts could store: allowed. */
  inDoubtCopies: number;
  failures: string[];
}

export interface StatsVerdict {
  /** The sum of every node's /stats total_events. */
  held: number;
  /** What it must be: twice every acknowledged event, plus up to twice each lost attempt's. */
  least: number;
  most: number;
}

interface BatchRow {
  batch: string;
  copies: number;
  ids: number;
  lo: number;
  hi: number;
}

/** A batch's attempts in order, repeats folded: `node2 503 SHARD_UNAVAILABLE x3, node1 200`. */
function attemptsText(batch: Batch): string {
  const runs: { text: string; times: number }[] = [];
  for (const attempt of batch.attempts) {
    const text = `${attempt.node} ${attempt.detail}`;
    const last = runs.at(-1);
    if (last?.text === text) last.times++;
    else runs.push({ text, times: 1 });
  }
  return runs.map((run) => (run.times === 1 ? run.text : `${run.text} x${run.times}`)).join(', ');
}

async function query(node: SoakNode, q: string): Promise<{ rows: unknown[][]; partial: boolean }> {
  const answer = await call(`${node.api}/query`, {
    method: 'POST',
    body: JSON.stringify({ q, ...ALL_TIME, limit: 1000 }),
    timeoutMs: 120_000,
  });
  if (answer.kind !== 'answered' || answer.status !== 200 || answer.body?.data?.type !== 'aggregate') {
    throw new Error(
      `${q} through ${node.id}: ${answer.kind === 'answered' ? `${answer.status} ${answer.text.slice(0, 300)}` : answer.error}`,
    );
  }
  return { rows: answer.body.data.rows, partial: answer.body.meta?.partial === true };
}

/** Every batch's copies, distinct ids and lowest and highest event number, by an export (no page limit). */
async function batchRows(node: SoakNode): Promise<{ rows: BatchRow[]; partial: boolean }> {
  const q = `from ${SOAK_INDEX} | stats count() as copies, dc(id) as ids, min(n) as lo, max(n) as hi by batch`;
  const answer = await call(`${node.api}/query/stream`, { method: 'POST', body: JSON.stringify({ q, ...ALL_TIME }), timeoutMs: 300_000 });
  if (answer.kind !== 'answered' || answer.status !== 200)
    throw new Error(
      `export through ${node.id}: ${answer.kind === 'answered' ? `${answer.status} ${answer.text.slice(0, 300)}` : answer.error}`,
    );
  const lines = answer.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  const last = lines.pop();
  if (last?.__meta === undefined)
    throw new Error(`export through ${node.id} did not end with __meta: ${JSON.stringify(last).slice(0, 300)}`);
  return { rows: lines as BatchRow[], partial: last.__meta.partial === true };
}

/** Copies beyond `allowed` of any one event of `batch` (a batch whose copies outnumber its ids). */
async function excessCopies(node: SoakNode, batch: string, allowed: number): Promise<number> {
  const q = `from ${SOAK_INDEX} | where batch = "${batch}" | stats count() as copies by id | where copies > ${allowed} | stats count() as ids, sum(copies) as over`;
  const [[ids, over]] = (await query(node, q)).rows as [[number, number | null]];
  return (over ?? 0) - ids * allowed;
}

export async function judgeThrough(node: SoakNode, ledger: Ledger): Promise<NodeVerdict> {
  const verdict: NodeVerdict = { node: node.id, counted: 0, missing: 0, duplicates: 0, inDoubtCopies: 0, failures: [] };
  const fail = (what: string): void => void verdict.failures.push(`through ${node.id}: ${what}`);
  const total = await query(node, `from ${SOAK_INDEX} | stats count()`);
  verdict.counted = total.rows[0]![0] as number;
  if (total.partial) fail('count() answered meta.partial with every node up');
  const { rows, partial } = await batchRows(node);
  if (partial) fail('the export of batch counts said partial with every node up');
  const found = new Map(rows.map((row) => [row.batch, row]));
  let copiesInAll = 0;
  for (const row of rows) {
    copiesInAll += row.copies;
    if (!ledger.batches.has(row.batch)) fail(`${row.copies} events of batch ${row.batch}, which no writer sent`);
  }
  if (copiesInAll !== verdict.counted) fail(`count() says ${verdict.counted}, the batches' counts sum to ${copiesInAll}`);
  for (const batch of ledger.batches.values()) {
    const row = found.get(batch.id) ?? { batch: batch.id, copies: 0, ids: 0, lo: 0, hi: batch.size - 1 };
    const { acknowledged, lost } = batchStanding(batch);
    if (row.lo < 0 || row.hi > batch.size - 1) fail(`batch ${batch.id} holds event numbers ${row.lo}..${row.hi} of ${batch.size}`);
    const missing = acknowledged * batch.size - row.ids;
    if (missing > 0) {
      verdict.missing += missing;
      fail(`batch ${batch.id} lacks ${missing} of its ${batch.size} acknowledged events (attempts: ${attemptsText(batch)})`);
    }
    const beyondOnce = row.copies - row.ids;
    const allowed = acknowledged + lost;
    if (allowed === 0 && row.copies > 0) {
      verdict.duplicates += row.copies;
      fail(`batch ${batch.id} was refused at every attempt (${attemptsText(batch)}) yet ${row.copies} of its events are stored`);
      continue;
    }
    const excess = beyondOnce === 0 ? 0 : allowed === 1 ? beyondOnce : await excessCopies(node, batch.id, allowed);
    verdict.duplicates += excess;
    if (lost > 0) verdict.inDoubtCopies += Math.max(0, row.copies - acknowledged * batch.size - excess);
    if (excess > 0)
      fail(`batch ${batch.id} holds ${excess} copies more than it may (${batch.size} events; attempts: ${attemptsText(batch)})`);
  }
  return verdict;
}

/** Every node's own /stats total_events, summed, against twice the events the writers' record allows. */
export async function judgeStats(nodes: readonly SoakNode[], ledger: Ledger): Promise<StatsVerdict> {
  let held = 0;
  for (const node of nodes) {
    const answer = await call(`${node.api}/stats`, { timeoutMs: 10_000 });
    if (answer.kind !== 'answered' || answer.status !== 200) throw new Error(`${node.id} /stats did not answer`);
    held += answer.body.data.total_events as number;
  }
  let least = 0;
  let most = 0;
  for (const batch of ledger.batches.values()) {
    const { acknowledged, lost } = batchStanding(batch);
    least += 2 * acknowledged * batch.size;
    most += 2 * (acknowledged + lost) * batch.size;
  }
  return { held, least, most };
}
