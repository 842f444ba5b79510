/**
 * A query over several nodes: each partition key in range is asked of one usable owner
 * (key-assignment.ts), every node answers for its keys with one ShardResult, and the coordinator
 * merges them. A node that fails mid-query has its keys asked again of their other owners; a key
 * no owner can answer for is counted missing, so the answer says it is partial instead of
 * quietly counting less. A node with no free query slot is busy, not failed: its keys go to
 * another owner, or are asked again after a short wait, and a node busy past the waits fails the
 * query with TOO_MANY_REQUESTS. An export (`POST /query/stream`) merges the nodes' newest-first
 * streams (stream-merge.ts); a node none of whose rows went out yet is withdrawn from the merge
 * and retried like any other, but one that fails after some of its rows went out cannot be
 * retried without repeating them, so that ends the export with an error. A query that fails stops
 * its other fragments and waits for them, so no row is handed on after the failure.
 */
import { HeadFloor } from '../query/exec/head-floor';
import { checkAlive, QueryLimitError } from '../query/exec/limits';
import type { SessionSpec } from '../query/exec/worker-protocol';
import type { TimedRow } from '../query/exec/rows';
import type { ShardResult } from '../query/exec/shard-session';
import type { CatalogTarget } from './catalog-parts';
import { assignView, reassignKeys, type AssigningView } from './key-assignment';
import type { ShardCounters } from './shard-progress';
import { StreamMerge } from './stream-merge';

/** What a node is asked: the query as every node plans it, and the keys it answers for. */
export interface ShardFragment {
  spec: SessionSpec;
  /** Frozen when the caller keeps the list for later queries (coordinator/key-sets.ts). */
  keys: readonly string[];
  /**
   * The index names the coordinator resolved the query's globs to (ClusterView.listedIndexes): a
   * node holding another index the query's `from` matches refuses the fragment
   * (IndexesUnlistedError). Absent: nothing was resolved, and nothing is checked.
   */
  indexes?: readonly string[];
}

/** What one run of a fragment shares with the query that asked for it. */
export interface ShardCall {
  signal: AbortSignal;
  /** In an export, the node's rows newest first, with a bound on what it can still send. */
  onRows: ((rows: TimedRow[], bound: number) => Promise<void>) | null;
  /** The node's counters now and then. */
  onProgress?: (counters: ShardCounters) => void;
  /** A `head`'s floor, shared by every node the query asks: raised by each, heeded by all. */
  headFloor?: HeadFloor;
}

/** A node that answers fragments (this node, or another over gRPC), and its catalog where it can. */
export interface ShardTarget extends Partial<CatalogTarget> {
  readonly node: string;
  /** Runs the fragment; resolves with the node's combined ShardResult. */
  run(fragment: ShardFragment, call: ShardCall): Promise<ShardResult>;
}

export type FragmentOutcome = 'ok' | 'error' | 'canceled';

/** What a query's scatter-gather tells as it goes (job progress, metrics). */
export interface ScatterObserver {
  /** Fragment `attempt` reported its counters. */
  progress?(attempt: number, counters: ShardCounters): void;
  /** Fragment `attempt`'s result came (before its `ended`): the coordinator merges it at once. */
  result?(attempt: number, result: ShardResult): void;
  /** Fragment `attempt` on `node` ended after `ms`. */
  ended?(attempt: number, node: string, ms: number, outcome: FragmentOutcome): void;
  /** A failed node's keys were asked again: `fragments` new fragments. */
  retried?(node: string, fragments: number): void;
  /** A head asked the keys of `fragments` answers again, for rows their newest share may have left out (newest-share.ts). */
  sharesShort?(fragments: number): void;
}

/**
 * What the coordinator knows of the cluster for one query: each key's owners (in ring order),
 * whether a node can answer for a key now (up, with no hints pending for it), the key's storage
 * group (absent: its owner set), and a kept first assignment where there is one (key-assignment.ts).
 */
export interface ClusterView extends AssigningView {
  target(node: string): ShardTarget;
  /**
   * The index names the query's globs stand for, as the coordinator knew them when it placed the
   * keys (absent: its keys came from the nodes themselves): every fragment carries them, so a node
   * holding an index the coordinator had not heard of yet refuses instead of answering short.
   */
  listedIndexes?: readonly string[];
}

/** One node's result, and the keys and query it answered for. */
export interface Answer {
  node: string;
  keys: string[];
  spec: SessionSpec;
  /** The fragment attempt that answered (ScatterObserver's numbering). */
  attempt: number;
  result: ShardResult;
}

export interface Gathered {
  /** Each node's result, with the node and keys it answered for. */
  answers: Answer[];
  /** How many keys no owner could answer for. */
  missing: number;
  /** Those keys. */
  missingKeys: string[];
}

/** Thrown when an export loses a node after some of its rows went out. */
export class ShardLostError extends Error {
  readonly code = 'SHARD_FAILED';
}

/** A node refused a fragment because every query slot of it was taken; as the query's failure, HTTP 429. */
export class ShardBusyError extends Error {
  readonly code = 'TOO_MANY_REQUESTS';
}

/**
 * A node holds an index the query's globs match that the fragment's listed names lack (a new index
 * its heartbeats had not told the coordinator of): the gather stops, and the coordinator asks the
 * nodes for their keys instead (distribution.ts).
 */
export class IndexesUnlistedError extends Error {
  readonly code = 'INDEXES_UNLISTED';

  constructor(
    readonly indexes: readonly string[],
    where = 'this node',
  ) {
    super(`${where} holds ${indexes.length === 1 ? 'index' : 'indexes'} ${indexes.join(', ')}, which the query's keys were not placed for`);
  }
}

/** The waits before a busy node's keys are asked again (ms); past the last, the query fails. */
export const BUSY_WAITS_MS = [50, 100, 200, 400, 800, 1000, 1000, 1000];

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Export rows the merge may hold for the slowest node before the nodes ahead of it wait: rows it
 * cannot release yet, since that node may still send newer ones.
 */
export const MAX_WAITING_ROWS = 50_000;

export interface ScatterOptions {
  maxWaitingRows?: number;
  /**
   * The `head` floor the nodes share, from where it starts (a new one from -Infinity when absent);
   * null: each node keeps its own, as a fragment with a newest share must (newest-share.ts).
   */
  floor?: HeadFloor | null;
  /** Numbers the fragment attempts: one counter for gathers that report to one observer (from 0 when absent). */
  attempts?: { next: number };
  /** The query each node is asked (a head's newest share is the node's own); `spec` when absent. */
  specOf?: (node: string) => SessionSpec;
}

export async function scatterGather(
  view: ClusterView,
  spec: SessionSpec,
  keys: Iterable<string>,
  signal: AbortSignal,
  onRows: ((rows: TimedRow[]) => Promise<void>) | null,
  observer: ScatterObserver = {},
  options: ScatterOptions = {},
): Promise<Gathered> {
  const maxWaitingRows = options.maxWaitingRows ?? MAX_WAITING_ROWS;
  const answers: Answer[] = [];
  const failed = new Set<string>();
  const usable = (node: string, key: string): boolean => !failed.has(node) && view.usable(node, key);
  const missingKeys: string[] = [];
  const merge = onRows === null ? null : new StreamMerge();
  // The query's own abort as well: a fragment that fails the query stops the others.
  const stop = new AbortController();
  const fragmentSignal = AbortSignal.any([signal, stop.signal]);
  let writes: Promise<void> = Promise.resolve();
  const emit = (rows: TimedRow[]): void => {
    if (rows.length === 0 || onRows === null || fragmentSignal.aborted) return;
    writes = writes.then(() => onRows(rows));
  };

  // One floor for the whole query: a node that fills a head lets the others stop.
  const headFloor = options.floor === undefined ? new HeadFloor() : (options.floor ?? undefined);
  const initialFloor = headFloor?.current ?? -Infinity;
  const counter = options.attempts ?? { next: 0 };
  const runNode = async (node: string, nodeKeys: string[], floor: HeadFloor | undefined, busyTries = 0): Promise<void> => {
    const attempt = counter.next++;
    const started = performance.now();
    const ended = (outcome: FragmentOutcome): void => observer.ended?.(attempt, node, performance.now() - started, outcome);
    const source = merge?.open() ?? -1;
    // Rows a target still hands on after its run failed are not this attempt's any more.
    let over = false;
    const rowsOf =
      merge === null
        ? null
        : async (rows: TimedRow[], bound: number): Promise<void> => {
            if (over) return;
            emit(merge.add(source, rows, bound));
            await writes;
            // A node ahead of the slowest one would only pile rows up here: it waits (a remote
            // node's stream pauses) until the slowest moves.
            while (merge.waiting > maxWaitingRows && merge.ahead(source) && !fragmentSignal.aborted) await merge.changed(fragmentSignal);
          };
    const onProgress = (counters: ShardCounters): void => observer.progress?.(attempt, counters);
    let result: ShardResult;
    const nodeSpec = options.specOf?.(node) ?? spec;
    try {
      const fragment: ShardFragment =
        view.listedIndexes === undefined
          ? { spec: nodeSpec, keys: nodeKeys }
          : { spec: nodeSpec, keys: nodeKeys, indexes: view.listedIndexes };
      result = await view.target(node).run(fragment, { signal: fragmentSignal, onRows: rowsOf, onProgress, headFloor: floor });
    } catch (error) {
      over = true;
      ended(fragmentSignal.aborted ? 'canceled' : 'error');
      // A canceled query, or a limit the query hit (memory, runtime), would fail on any owner
      // alike; an unlisted index asks for other keys, not other owners.
      if (fragmentSignal.aborted || error instanceof QueryLimitError || error instanceof IndexesUnlistedError) throw error;
      if (merge !== null) {
        if (merge.sent(source)) throw new ShardLostError(`node ${node} failed in the middle of the export: ${(error as Error).message}`);
        emit(merge.withdraw(source));
      }
      if (error instanceof ShardBusyError) return runBusy(node, nodeKeys, floor, busyTries, error);
      failed.add(node);
      const again = reassignKeys(node, nodeKeys, (key) => view.owners(key), usable, view.group);
      for (const key of again.missing) missingKeys.push(key);
      if (again.byNode.size > 0) observer.retried?.(node, again.byNode.size);
      // The failed node's rises may have come from rows no result will hold: its keys are read
      // again with a floor of their own, so the rows they hold at its floor are found again.
      const retryFloor = (): HeadFloor | undefined => (headFloor === undefined ? undefined : new HeadFloor(initialFloor));
      await Promise.all([...again.byNode].map(([next, list]) => runNode(next, list, retryFloor())));
      return;
    }
    // Outside the retry: a result that cannot be merged fails the query, it is not the node's failure.
    answers.push({ node, keys: nodeKeys, spec: nodeSpec, attempt, result });
    observer.result?.(attempt, result);
    ended('ok');
    if (merge !== null) emit(merge.close(source));
  };

  /**
   * A busy node's keys (it ran nothing of them): to another usable owner at once the first time,
   * after a wait from then on; a key with no other usable owner waits for the same node.
   */
  const runBusy = async (
    node: string,
    nodeKeys: string[],
    floor: HeadFloor | undefined,
    tries: number,
    error: ShardBusyError,
  ): Promise<void> => {
    if (tries >= BUSY_WAITS_MS.length) throw error;
    const elsewhere = reassignKeys(node, nodeKeys, (key) => view.owners(key), usable, view.group);
    // A key only the busy node can answer waits for it, and so does a second refusal in a row.
    const byNode = new Map(elsewhere.byNode);
    if (elsewhere.missing.length > 0) byNode.set(node, elsewhere.missing);
    if (tries > 0 || elsewhere.missing.length > 0) await wait(BUSY_WAITS_MS[tries]!, fragmentSignal);
    checkAlive(fragmentSignal);
    // The busy node read nothing, so the query's floor holds for its keys.
    await Promise.all([...byNode].map(([next, list]) => runNode(next, list, floor, tries + 1)));
  };

  // No node failed yet: the view's own usable holds, and with it a kept assignment.
  const first = assignView(view, keys);
  // One by one: a long range may miss more keys than a call can spread.
  for (const key of first.missing) missingKeys.push(key);
  const runs = [...first.byNode].map(([node, list]) => runNode(node, list, headFloor));
  try {
    await Promise.all(runs);
  } catch (error) {
    // The other fragments stop, and nothing more is handed on once this returns.
    stop.abort(error);
    await Promise.allSettled(runs);
    await writes.catch(() => undefined);
    throw error;
  }
  await writes;
  return { answers, missing: missingKeys.length, missingKeys };
}
