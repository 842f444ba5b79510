/**
 * This node as a shard: a fragment runs over the node's own storage, limited to the fragment's
 * keys, in the query worker sessions, and the sessions' results are combined into one
 * (shard-results.ts). The gRPC shard service runs fragments from other coordinators the same way.
 */
import { scanShards, type ScanSource } from '../query/exec/execute';
import type { HeadFloor } from '../query/exec/head-floor';
import { MemoryBudget, type MemoryPool } from '../query/exec/limits';
import { QueryProgress } from '../query/exec/progress';
import type { TimedRow } from '../query/exec/rows';
import type { QueryWorkerPool } from '../query/exec/session-pool';
import { combineShardResults } from '../query/exec/shard-results';
import type { ShardResult } from '../query/exec/shard-session';
import { planFragment } from '../query/stages/fragment-plan';
import type { ShardCall, ShardFragment, ShardTarget } from './scatter-gather';
import { keySetOf } from './key-sets';
import { checkListedIndexes } from './listed-indexes';
import { reportProgress } from './shard-progress';

/** The plan every node makes of a fragment's query (the planner is deterministic). */
export const planOf = planFragment;

export interface LocalShardOptions {
  /** The per-query memory limit (`query.max_query_memory`) and the pool it draws from. */
  maxQueryMemoryBytes: () => number;
  pool: MemoryPool | null;
  /** Progress of the query this fragment belongs to, when it runs on the coordinator itself. */
  progress?: QueryProgress;
  /** The query's `head` floor, shared with its other shards. */
  headFloor?: HeadFloor;
  /** The names of the indexes this node holds (engine.heldIndexNames), checked against a fragment's listed ones. */
  heldIndexes: () => Iterable<string>;
}

/** Runs a fragment over this node's storage: the node's ShardResult for the fragment's keys. */
export async function runFragment(
  source: ScanSource,
  workers: QueryWorkerPool,
  fragment: ShardFragment,
  signal: AbortSignal,
  onRows: ((rows: TimedRow[], bound: number) => Promise<void>) | null,
  options: LocalShardOptions,
): Promise<ShardResult> {
  const plan = planOf(fragment.spec);
  if (fragment.indexes !== undefined) checkListedIndexes(plan.indexPatterns, fragment.indexes, options.heldIndexes());
  const budget = new MemoryBudget(options.maxQueryMemoryBytes(), options.pool);
  try {
    const page = { limit: fragment.spec.limit, offset: fragment.spec.offset };
    const results = await scanShards(source, plan, {
      ...page,
      signal,
      budget,
      progress: options.progress ?? new QueryProgress(),
      pool: workers,
      spec: fragment.spec,
      keys: keySetOf(fragment.keys),
      ...(onRows === null ? {} : { onRows }),
      ...(options.headFloor === undefined ? {} : { headFloor: options.headFloor }),
    });
    return combineShardResults(results, plan, page);
  } finally {
    budget.close();
  }
}

export class LocalShardTarget implements ShardTarget {
  constructor(
    readonly node: string,
    private readonly source: ScanSource,
    private readonly workers: QueryWorkerPool,
    private readonly options: LocalShardOptions,
  ) {}

  async run(fragment: ShardFragment, call: ShardCall): Promise<ShardResult> {
    // The other nodes' calls go out first: this node's planning would otherwise hold their requests back.
    await new Promise((resolve) => setImmediate(resolve));
    const { signal, onRows, onProgress, headFloor } = call;
    const options = headFloor === undefined ? this.options : { ...this.options, headFloor };
    if (onProgress === undefined) return runFragment(this.source, this.workers, fragment, signal, onRows, options);
    const progress = new QueryProgress();
    const stop = reportProgress(progress, onProgress);
    try {
      return await runFragment(this.source, this.workers, fragment, signal, onRows, { ...options, progress });
    } finally {
      stop();
    }
  }
}
