/**
 * A query as the engine's tests run it in this process: its session spec over a fixed range, and
 * the options to execute or scan it with (no limits worth hitting, a fresh progress), or the
 * answer of a storage engine of this process, or of shards' results merged as a coordinator merges them.
 */
import { localScanSource } from '../../node/core/local-scan-source';
import { executePlan, type ExecuteOptions } from '../../query/exec/execute';
import { finishResult, type QueryResultData } from '../../query/exec/result';
import { mergeShardResults } from '../../query/exec/shard-results';
import type { ShardResult } from '../../query/exec/shard-session';
import { planFragment } from '../../query/stages/fragment-plan';
import { parseQuery, planQuery } from '../../query/stages';
import type { StorageEngine } from '../../storage/engine';
import { MemoryBudget } from '../../query/exec/limits';
import { QueryProgress } from '../../query/exec/progress';
import type { SessionSpec } from '../../query/exec/worker-protocol';
import type { QueryWorkerPool } from '../../query/exec/session-pool';

export interface TestRange {
  fromMicros: number;
  toMicros: number;
  nowMicros: number;
}

/** The spec every session of the query is planned from: not profiled, traced or streamed. */
export function sessionSpec(
  text: string,
  range: TestRange,
  page: { limit: number; offset: number } = { limit: 50, offset: 0 },
): SessionSpec {
  return { text, variables: {}, ...range, ...page, profile: false, trace: false, stream: false };
}

/** Options to run `spec` with the workers of `pool`; `keys` limits the scan to those partition keys. */
export function executeOptions(pool: QueryWorkerPool, spec: SessionSpec, keys?: ReadonlySet<string>): ExecuteOptions {
  return {
    limit: spec.limit,
    offset: spec.offset,
    signal: new AbortController().signal,
    budget: new MemoryBudget(1e9, null),
    progress: new QueryProgress(),
    pool,
    spec,
    ...(keys === undefined ? {} : { keys }),
  };
}

/** The answer `engine` gives to `text` over `range`, run on the workers of `pool`. */
export async function answerOf(
  engine: StorageEngine,
  pool: QueryWorkerPool,
  text: string,
  range: TestRange,
  page?: { limit: number; offset: number },
): Promise<QueryResultData> {
  const plan = planQuery(parseQuery(text, {}), range);
  return (await executePlan(localScanSource(engine), plan, executeOptions(pool, sessionSpec(text, range, page)))).data;
}

/** The answer a coordinator gives to `spec` from the shards' `results`. */
export function mergedAnswer(results: readonly { result: ShardResult }[], spec: SessionSpec): QueryResultData {
  const plan = planFragment(spec);
  return finishResult(
    plan,
    mergeShardResults(
      results.map((each) => each.result),
      plan,
      spec,
    ),
    spec,
  );
}
