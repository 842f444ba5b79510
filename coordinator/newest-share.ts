/**
 * A `head N` over several nodes. Placement spreads a bucket's events over the nodes by a hash of
 * host and source, so of the N newest rows each of n nodes holds about N/n. Asking every node
 * for N rows decodes and sends n·N rows for an answer of N; the first round instead asks each for
 * its newest share, a little above N/n, with no floor shared between them (a node that filled
 * its share has not filled the head).
 *
 * Let T be the N-th newest time of every row the first round returned. A node that sent fewer
 * rows than its share sent all it has; one whose oldest row sent is at or below T holds nothing
 * newer than T that it did not send. The merge then holds every row newer than T and at least N
 * at or above it: exact, up to which rows tied at T fill the last places, as on one node. Any
 * other node may hold rows between T and its oldest: its keys are asked again for the whole N,
 * with T as their floor, and that answer replaces its first one.
 */
import { HeadFloor } from '../query/exec/head-floor';
import type { SessionSpec } from '../query/exec/worker-protocol';
import { assignKeys } from './key-assignment';
import { scatterGather, type Answer, type ClusterView, type Gathered, type ScatterObserver } from './scatter-gather';

/**
 * The rows each of `nodes` nodes is asked for first: the even share and two of its standard
 * deviations as if each row fell on a node at random, plus two; null when that is not below N.
 */
export function newestShare(count: number, nodes: number): number | null {
  if (nodes < 2) return null;
  const even = count / nodes;
  const share = Math.ceil(even + 2 * Math.sqrt(even)) + 2;
  return share < count ? share : null;
}

/** The time of the `count`-th newest row over the answers; -Infinity when they hold fewer rows. */
export function nthNewestTime(answers: readonly Answer[], count: number): number {
  const times = answers.flatMap((answer) => (answer.result.newest ?? []).map((row) => row.time));
  if (times.length < count) return -Infinity;
  times.sort((a, b) => b - a);
  return times[count - 1]!;
}

/** Whether an answer to a newest share may lack rows newer than `floor`. */
export function cutShort(answer: Answer, share: number, floor: number): boolean {
  const rows = answer.result.newest ?? [];
  if (rows.length < share) return false;
  let oldest = Infinity;
  for (const row of rows) if (row.time < oldest) oldest = row.time;
  return oldest > floor;
}

/** scatterGather for a `head count` that is not an export: newest shares first, then the whole head where a share fell short. */
export async function gatherNewest(
  view: ClusterView,
  spec: SessionSpec,
  keys: readonly string[],
  count: number,
  signal: AbortSignal,
  observer: ScatterObserver,
): Promise<Gathered> {
  const nodes = assignKeys(
    keys,
    (key) => view.owners(key),
    (node, key) => view.usable(node, key),
  ).byNode.size;
  const share = newestShare(count, nodes);
  if (share === null) return scatterGather(view, spec, keys, signal, null, observer);

  // The first round's results merge only once they are known to be whole.
  const { result, ...rest } = observer;
  const first = await scatterGather(view, { ...spec, newestShare: share }, keys, signal, null, rest, { floor: null });
  const floor = nthNewestTime(first.answers, count);
  const kept: Answer[] = [];
  const again: string[] = [];
  for (const answer of first.answers) {
    if (cutShort(answer, share, floor)) again.push(...answer.keys);
    else kept.push(answer);
  }
  for (const answer of kept) result?.(answer.attempt, answer.result);
  if (again.length === 0) return { ...first, answers: kept };

  const second = await scatterGather(view, spec, again, signal, null, observer, {
    floor: new HeadFloor(floor),
    firstAttempt: first.attempts,
  });
  return {
    answers: [...kept, ...second.answers],
    attempts: first.attempts + second.attempts,
    missing: first.missing + second.missing,
    missingKeys: [...first.missingKeys, ...second.missingKeys],
  };
}
