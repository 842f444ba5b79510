/**
 * A `head N` over several nodes. Placement spreads a bucket's events over the nodes by a hash of
 * host and source, so of the N newest rows each of n nodes holds about N/n, more where the
 * bucket's busier partitions fell on it (one of three nodes held 48% of the bench data's newest
 * hour). Asking every node for N rows decodes and sends n·N rows for an answer of N; the first
 * round instead asks each for its newest share, a little above N/n, with no floor shared between
 * them (a node that filled its share has not filled the head).
 *
 * Let T be the N-th newest time of every row the first round returned. A node that sent fewer
 * rows than its share sent all it has; one whose oldest row sent is at or below T holds nothing
 * newer than T that it did not send. The merge then holds every row newer than T and at least N
 * at or above it: exact, up to which rows tied at T fill the last places, as on one node. Any
 * other node may hold rows between T and its oldest row sent (gatherNewest asks it for them).
 */
import { HeadFloor } from '../query/exec/head-floor';
import type { SessionSpec } from '../query/exec/worker-protocol';
import { assignView } from './key-assignment';
import { scatterGather, type Answer, type ClusterView, type Gathered, type ScatterObserver } from './scatter-gather';

/**
 * The rows a node expected to hold `fraction` of the newest is asked for first: that many and two
 * of its standard deviations as if each row fell on it at random, plus two; null when that is not
 * below N (the node is asked for the whole head).
 */
export function newestShare(count: number, fraction: number): number | null {
  const expected = count * fraction;
  const share = Math.ceil(expected + 2 * Math.sqrt(expected)) + 2;
  return share < count ? share : null;
}

/** Index scopes whose nodes' parts are remembered; the oldest scope is forgotten past it. */
const MAX_SCOPES = 256;

/**
 * Each node's part of the newest rows, learnt from the heads a coordinator answered, by the
 * indexes they read: a bucket's busier partitions fall on some node, so its part stays above the
 * even one until the next bucket deals them again. Each answer moves a node's part halfway to what
 * it held of that answer, so a new bucket's parts are learnt within a few heads. A node nothing
 * was learnt of is expected to hold an even part.
 */
export class NewestShares {
  private readonly scopes = new Map<string, Map<string, number>>();

  /** The part of the newest rows of `scope` that `node` is expected to hold, of `nodes` nodes asked. */
  fraction(scope: string, node: string, nodes: number): number {
    return this.scopes.get(scope)?.get(node) ?? 1 / nodes;
  }

  /** A head over `scope` was answered from `answers`: each node's part of its rows at or above its N-th newest time. */
  learn(scope: string, answers: readonly Answer[], count: number, nodes: readonly string[]): void {
    const floor = nthNewestTime(answers, count);
    const held = new Map<string, number>(nodes.map((node) => [node, 0]));
    let total = 0;
    for (const answer of answers) {
      let rows = 0;
      for (const row of answer.result.newest ?? []) if (row.time >= floor) rows++;
      held.set(answer.node, (held.get(answer.node) ?? 0) + rows);
      total += rows;
    }
    if (total === 0) return;
    let parts = this.scopes.get(scope);
    if (parts === undefined) {
      if (this.scopes.size >= MAX_SCOPES) this.scopes.delete(this.scopes.keys().next().value!);
      parts = new Map();
      this.scopes.set(scope, parts);
    }
    for (const [node, rows] of held) parts.set(node, (this.fraction(scope, node, held.size) + rows / total) / 2);
  }
}

/** The time of the `count`-th newest row over the answers; -Infinity when they hold fewer rows. */
export function nthNewestTime(answers: readonly Answer[], count: number): number {
  const times = answers.flatMap((answer) => (answer.result.newest ?? []).map((row) => row.time));
  if (times.length < count) return -Infinity;
  times.sort((a, b) => b - a);
  return times[count - 1]!;
}

/** Whether an answer may lack rows newer than `floor`: it filled the newest share it was asked for. */
export function cutShort(answer: Answer, floor: number): boolean {
  const share = answer.spec.newestShare;
  if (share === undefined || (answer.result.newest ?? []).length < share) return false;
  return oldestTime(answer) > floor;
}

/** The time of an answer's oldest row (Infinity when it has none). */
function oldestTime(answer: Answer): number {
  let oldest = Infinity;
  for (const row of answer.result.newest ?? []) if (row.time < oldest) oldest = row.time;
  return oldest;
}

/** The answer with only its rows that pass `keep`. */
function withRows(answer: Answer, keep: (time: number) => boolean): Answer {
  const newest = answer.result.newest?.filter((row) => keep(row.time)) ?? null;
  return { ...answer, result: { ...answer.result, newest } };
}

/** A head to gather: the query, its keys and N, and who hears how its fragments go. */
export interface NewestQuery {
  view: ClusterView;
  spec: SessionSpec;
  keys: readonly string[];
  count: number;
  signal: AbortSignal;
  observer: ScatterObserver;
}

/**
 * scatterGather for a `head count` that is not an export: newest shares first. An answer whose
 * share fell short keeps its rows newer than its oldest row's time; its keys are asked again for
 * the newest rows from the floor up to that time, ties at it included, as many as the head still
 * lacks above it, and they take the place of the rows it sent at that time. So the second round
 * reads the few blocks between the two times only.
 */
export async function gatherNewest(query: NewestQuery, learnt: { shares: NewestShares; scope: string }): Promise<Gathered> {
  const { view, spec, keys, count, signal, observer } = query;
  const nodes = [...assignView(view, keys).byNode.keys()];
  const { shares, scope } = learnt;
  const shareOf = (node: string): number | null =>
    nodes.length < 2 ? null : newestShare(count, shares.fraction(scope, node, nodes.length));
  if (nodes.every((node) => shareOf(node) === null)) return scatterGather(view, spec, keys, signal, null, observer);
  const gathered = await gatherShares(query, (node) => {
    const share = shareOf(node);
    return share === null ? spec : { ...spec, newestShare: share };
  });
  shares.learn(scope, gathered.answers, count, nodes);
  return gathered;
}

async function gatherShares(query: NewestQuery, specOf: (node: string) => SessionSpec): Promise<Gathered> {
  const { view, spec, keys, count, signal, observer } = query;
  // The first round's results merge only once they are known to be whole, or trimmed.
  const { result, ...rest } = observer;
  const attempts = { next: 0 };
  const first = await scatterGather(view, spec, keys, signal, null, rest, { floor: null, attempts, specOf });
  const floor = nthNewestTime(first.answers, count);
  const answers: Answer[] = [];
  const short: Answer[] = [];
  for (const answer of first.answers) (cutShort(answer, floor) ? short : answers).push(answer);
  for (const answer of answers) result?.(answer.attempt, answer.result);
  if (short.length === 0) return { ...first, answers };
  observer.sharesShort?.(short.length);

  const seconds = await Promise.all(
    short.map(async (answer) => {
      const oldest = oldestTime(answer);
      const trimmed = withRows(answer, (time) => time > oldest);
      result?.(trimmed.attempt, trimmed.result);
      // Every row newer than `oldest` that came is newer than all the window holds: the window
      // adds at most the rows the head still lacks above them (at least one, since the N-th
      // newest time is below `oldest`). Times are whole microseconds: the range ends just after it.
      const newer = first.answers.reduce((sum, each) => sum + (each.result.newest ?? []).filter((row) => row.time > oldest).length, 0);
      const window = {
        ...spec,
        toMicros: Math.min(spec.toMicros, Math.floor(oldest) + 1),
        newestShare: count - newer,
      };
      const upTo: ScatterObserver = {
        ...rest,
        result: (attempt, each) => result?.(attempt, withRows({ ...answer, result: each }, (time) => time <= oldest).result),
      };
      const second = await scatterGather(view, window, answer.keys, signal, null, upTo, { floor: new HeadFloor(floor), attempts });
      return { trimmed, second, oldest };
    }),
  );
  for (const { trimmed, second, oldest } of seconds) {
    answers.push(trimmed, ...second.answers.map((each) => withRows(each, (time) => time <= oldest)));
  }
  return {
    answers,
    missing: first.missing + seconds.reduce((sum, each) => sum + each.second.missing, 0),
    missingKeys: [...first.missingKeys, ...seconds.flatMap((each) => each.second.missingKeys)],
  };
}
