/**
 * A live tail's pipeline: a query of streaming stages run over events as they are ingested rather
 * than over storage. It has two parts, like a stored query's plan:
 * - `matchChunks`: the stages before the first `head` (the plan's shard operators), over the
 *   chunks one ingest request stored; any node that took the events can run it;
 * - `LiveFinish`: what follows, on the node that holds the tail session: each `head N` counts the
 *   rows it lets through over the whole session (none pass once N did), then the later stages and
 *   the answer's formatting (times as ISO 8601, the well-known fields first).
 */
import { chunkBatch } from '../../storage/buffer/chunk-read';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import { indexMatcher } from '../../storage/scan';
import type { QueryPlan } from '../plan/plan';
import { applyBatchOp } from './batch-ops';
import { eventFormatter } from './result';
import { batchToRows, rowsToBatch, type Row } from './rows';
import { fullSelection } from './vectors';

/** Every event, whatever its time: a live event is delivered whatever `_time` it carries. */
const ALL_TIME = { fromMicros: Number.NEGATIVE_INFINITY, toMicros: Number.POSITIVE_INFINITY };

/** The rows of `chunks` (of the plan's indexes) that pass the stages before the first `head`, in ingest order. */
export function matchChunks(plan: QueryPlan, chunks: readonly EventChunk[], ofIndex = indexMatcher(plan.indexPatterns)): Row[] {
  const keepNulls = plan.shardOps.some((op) => op.kind === 'keep');
  const rows: Row[] = [];
  for (const chunk of chunks) {
    if (chunk.count === 0 || !ofIndex(chunk.key.index)) continue;
    const batch = chunkBatch(chunk, { ...ALL_TIME, columns: plan.scan.columns });
    const sel = fullSelection(batch.rowCount);
    let n = batch.rowCount;
    for (const op of plan.shardOps) {
      if (n === 0) break;
      n = applyBatchOp(op, batch, sel, n);
    }
    for (const row of batchToRows(batch, sel, n, keepNulls)) rows.push(row);
  }
  return rows;
}

/** The stages from the first `head` on, over matched rows, for one session (it keeps each head's count). */
export class LiveFinish {
  /** Rows each `head` may still let through, by its place in the plan's row operators. */
  private readonly remaining = new Map<number, number>();
  private readonly format: (row: Row) => Row;

  constructor(private readonly plan: QueryPlan) {
    this.format = eventFormatter(plan);
    if (plan.boundary.kind === 'head') this.remaining.set(-1, plan.boundary.count);
    plan.rowOps.forEach((op, place) => {
      if (op.kind === 'head') this.remaining.set(place, op.count);
      else if (op.kind !== 'batch') throw new Error(`live tail cannot run ${op.kind}`);
    });
  }

  /** True once some `head` let its N rows through: no row can pass it any more. */
  get exhausted(): boolean {
    for (const left of this.remaining.values()) if (left === 0) return true;
    return false;
  }

  /** The answer's events for matched rows, in their order. */
  finish(matched: readonly Row[]): Row[] {
    let rows = this.take(-1, [...matched]);
    this.plan.rowOps.forEach((op, place) => {
      if (rows.length === 0) return;
      if (op.kind === 'head') rows = this.take(place, rows);
      else if (op.kind === 'batch') {
        const batch = rowsToBatch(rows);
        const sel = fullSelection(rows.length);
        const n = applyBatchOp(op.op, batch, sel, rows.length);
        rows = batchToRows(batch, sel, n, op.op.kind === 'keep');
      }
    });
    return rows.map(this.format);
  }

  private take(place: number, rows: Row[]): Row[] {
    const left = this.remaining.get(place);
    if (left === undefined) return rows;
    const taken = rows.slice(0, left);
    this.remaining.set(place, left - taken.length);
    return taken;
  }
}
