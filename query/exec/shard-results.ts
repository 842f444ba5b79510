/**
 * What shards hand the coordinator, merged. Each query worker session ends with a ShardResult;
 * the sessions of one node are combined into one ShardResult (what a node sends a coordinator in
 * a cluster), and the coordinator merges the results of every shard into the ShardOutput that
 * result.ts finishes. Combining first and merging later gives the same answer as merging every
 * session at once: each part keeps what the final merge could still use (the page's newest rows,
 * the first sorted rows, every row, partial stats).
 */
import type { QueryPlan } from '../plan/plan';
import type { ResultPage, ShardOutput } from './result';
import type { Row, TimedRow } from './rows';
import type { OpStats, ShardResult } from './shard-session';
import { mergeSorted } from './sorted-rows';
import { StatsAccumulator, type PartialStats } from './stats';

/** How many rows a part must keep for the answer's page: a head keeps its N, events the page. */
function capacityOf(plan: QueryPlan, page: ResultPage): number {
  const boundary = plan.boundary;
  return boundary.kind === 'head' ? boundary.count : page.offset + page.limit;
}

function sumOpStats(results: readonly ShardResult[]): OpStats[] {
  const opStats: OpStats[] = [];
  for (const result of results) {
    result.opStats?.forEach((stats, i) => {
      const entry = (opStats[i] ??= { rowsIn: 0, rowsOut: 0, ms: 0 });
      entry.rowsIn += stats.rowsIn;
      entry.rowsOut += stats.rowsOut;
      entry.ms += stats.ms;
    });
  }
  return opStats;
}

function newestOf(results: readonly ShardResult[], capacity: number): TimedRow[] | null {
  const lists = results.map((result) => result.newest).filter((rows): rows is TimedRow[] => rows !== null);
  return lists.length === 0
    ? null
    : lists
        .flat()
        .sort((a, b) => b.time - a.time)
        .slice(0, capacity);
}

function sortedOf(results: readonly ShardResult[], plan: QueryPlan, capacity: number): ShardResult['sorted'] {
  const boundary = plan.boundary;
  if (boundary.kind !== 'sorted') return null;
  return mergeSorted(
    boundary.keys.map((key) => key.direction),
    results.map((result) => result.sorted ?? []),
    boundary.count ?? capacity,
  );
}

function allOf(results: readonly ShardResult[]): TimedRow[] | null {
  const lists = results.map((result) => result.all).filter((rows): rows is TimedRow[] => rows !== null);
  return lists.length === 0 ? null : lists.flat();
}

function partialsOf(results: readonly ShardResult[]): PartialStats[] {
  return results.map((result) => result.partial).filter((partial): partial is PartialStats => partial !== null);
}

/**
 * The coordinator's merge, fed one shard's result at a time: a stats partial merges into the
 * groups as it comes (over a cluster, while slower nodes still scan); rows wait for the end,
 * where each list keeps only what the page can use.
 */
export class ShardMerge {
  private readonly results: ShardResult[] = [];
  private readonly stats: StatsAccumulator | null;

  constructor(
    private readonly plan: QueryPlan,
    private readonly page: ResultPage,
  ) {
    this.stats = plan.boundary.kind === 'stats' ? new StatsAccumulator(plan.boundary.spec) : null;
  }

  add(result: ShardResult): void {
    if (this.stats !== null && result.partial !== null) {
      this.stats.mergePartial(result.partial);
      this.results.push({ ...result, partial: null });
    } else this.results.push(result);
  }

  output(): ShardOutput {
    const { results, plan } = this;
    const capacity = capacityOf(plan, this.page);
    return {
      matched: results.reduce((sum, result) => sum + result.matched, 0),
      newest: newestOf(results, capacity),
      sorted: sortedOf(results, plan, capacity),
      all: allOf(results),
      stats: this.stats,
      opStats: sumOpStats(results),
    };
  }
}

/** The coordinator's merge of every shard's result. */
export function mergeShardResults(results: readonly ShardResult[], plan: QueryPlan, page: ResultPage): ShardOutput {
  const merge = new ShardMerge(plan, page);
  for (const result of results) merge.add(result);
  return merge.output();
}

/** One node's sessions as one ShardResult, partial stats merged into one. */
export function combineShardResults(results: readonly ShardResult[], plan: QueryPlan, page: ResultPage): ShardResult {
  const capacity = capacityOf(plan, page);
  const partials = partialsOf(results);
  let partial: PartialStats | null = null;
  if (partials.length === 1) partial = partials[0];
  else if (partials.length > 1 && plan.boundary.kind === 'stats') {
    const accumulator = new StatsAccumulator(plan.boundary.spec);
    for (const each of partials) accumulator.mergePartial(each);
    partial = accumulator.toPartial();
  }
  const stats = results.map((result) => result.stats);
  const sum = (pick: (s: ShardResult['stats']) => number): number => stats.reduce((total, s) => total + pick(s), 0);
  const decisions = stats.some((s) => s.decisions !== null) ? stats.flatMap((s) => s.decisions ?? []) : null;
  return {
    matched: results.reduce((total, result) => total + result.matched, 0),
    newest: newestOf(results, capacity),
    sorted: sortedOf(results, plan, capacity),
    all: allOf(results),
    partial,
    opStats: results.some((result) => result.opStats !== null) ? sumOpStats(results) : null,
    stats: {
      segmentsTotal: sum((s) => s.segmentsTotal),
      segmentsScanned: sum((s) => s.segmentsScanned),
      segmentsSkippedIndex: sum((s) => s.segmentsSkippedIndex),
      segmentsSkippedTime: sum((s) => s.segmentsSkippedTime),
      segmentsSkippedStats: sum((s) => s.segmentsSkippedStats),
      segmentsSkippedBloom: sum((s) => s.segmentsSkippedBloom),
      blocksSkippedRange: sum((s) => s.blocksSkippedRange),
      blocksSkippedBloom: sum((s) => s.blocksSkippedBloom),
      bufferedEvents: sum((s) => s.bufferedEvents),
      rowsRead: sum((s) => s.rowsRead),
      bytesRead: sum((s) => s.bytesRead),
      blocksCached: sum((s) => s.blocksCached),
      decisions,
    },
    memoryBytes: results.reduce((total, result) => total + result.memoryBytes, 0),
  };
}

/** Where the numbers JSON cannot write are (NaN and the infinities become null, -0 becomes 0): paths and their text. */
type NonFinite = [path: (string | number)[], text: string][];

/** Whether JSON writes the number as itself: finite and not -0 (checked without a call: this runs for every number sent). */
function plainNumber(x: number): boolean {
  return x - x === 0 && (x !== 0 || 1 / x > 0);
}

function nonFiniteText(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

/**
 * Walks the arrays and objects under `value`, numbers in place: a partial's sketches hold tens of
 * thousands, and this runs once a fragment, mostly in code V8 has not optimized yet.
 */
function findNonFinite(value: unknown, path: (string | number)[], out: NonFinite): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'number') {
        if (!plainNumber(item)) out.push([[...path, i], nonFiniteText(item)]);
      } else if (typeof item === 'object' && item !== null) {
        path.push(i);
        findNonFinite(item, path, out);
        path.pop();
      }
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (typeof item === 'number') {
        if (!plainNumber(item)) out.push([[...path, key], nonFiniteText(item)]);
      } else if (typeof item === 'object' && item !== null) {
        path.push(key);
        findNonFinite(item, path, out);
        path.pop();
      }
    }
  }
}

/**
 * A value as bytes for another node: JSON (readable by any later version), with the places of NaN,
 * the infinities and -0 listed beside it, since JSON cannot write them.
 */
function encodeExact(value: unknown): Buffer {
  const nonFinite: NonFinite = [];
  if (typeof value === 'number' && !plainNumber(value)) nonFinite.push([[], nonFiniteText(value)]);
  else findNonFinite(value, [], nonFinite);
  return Buffer.from(JSON.stringify({ result: value, nonFinite }));
}

function decodeExact<T>(bytes: Uint8Array): T {
  const { result, nonFinite } = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as {
    result: T;
    nonFinite: NonFinite;
  };
  for (const [path, text] of nonFinite) {
    if (path.length === 0) return Number(text) as T;
    let target = result as unknown as Record<string | number, unknown>;
    for (let i = 0; i < path.length - 1; i++) target = target[path[i]] as Record<string | number, unknown>;
    target[path[path.length - 1]] = Number(text);
  }
  return result;
}

/** A ShardResult as bytes for another node (encodeExact). */
export function encodeShardResult(result: ShardResult): Buffer {
  return encodeExact(result);
}

export function decodeShardResult(bytes: Uint8Array): ShardResult {
  return decodeExact<ShardResult>(bytes);
}

/** Export rows as bytes for another node, in their order (encodeExact). */
export function encodeRows(rows: readonly TimedRow[]): Buffer {
  return encodeExact(rows);
}

export function decodeRows(bytes: Uint8Array): TimedRow[] {
  return decodeExact<TimedRow[]>(bytes);
}

/** Rows as bytes for another node (encodeExact): a live tail's matches. */
export function encodePlainRows(rows: readonly Row[]): Buffer {
  return encodeExact(rows);
}

export function decodePlainRows(bytes: Uint8Array): Row[] {
  return decodeExact<Row[]>(bytes);
}
