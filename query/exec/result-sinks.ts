/**
 * Where a shard session puts the rows that passed every operator: one sink per kind of boundary
 * (plan.ts Boundary), chosen once per session, so that the per-block path asks no boundary
 * questions.
 */
import type { Column, ColumnBatch } from '../../storage/core/column';
import type { Boundary } from '../plan/plan';
import { valueAt } from './access';
import { NewestRows } from './newest-rows';
import { materialize, rowBytes, type TimedRow } from './rows';
import { SortedRows, type KeyedRow, type SortKey } from './sorted-rows';
import { StatsAccumulator, type PartialStats } from './stats';

/** A boundary's part of a shard's answer (the others stay null). */
export interface BoundaryResult {
  newest: TimedRow[] | null;
  sorted: KeyedRow[] | null;
  all: TimedRow[] | null;
  partial: PartialStats | null;
}

export interface ResultSink {
  /** The rows a newest-N boundary (a head, an events page) keeps, which later rows must beat; null for the others. */
  readonly newest: NewestRows | null;
  /** Takes the `n` selected rows of `batch`; `times` is its `_time` column. */
  collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void;
  /** What the sink holds for the answer, in bytes. */
  heldBytes(): number;
  /** Export mode: the rows found since the previous call, each block's newest first; null for the others. */
  takeStreamed(): TimedRow[] | null;
  result(): BoundaryResult;
}

function timeValuesOf(times: Column | undefined): Float64Array | null {
  return times !== undefined && times.kind === 'time' ? times.values : null;
}

/** The newest N rows: a head, or a page of events. */
class NewestSink implements ResultSink {
  readonly newest: NewestRows;
  private bytes = 0;

  constructor(
    capacity: number,
    private readonly keepNulls: boolean,
  ) {
    this.newest = new NewestRows(capacity);
  }

  collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    const timeValues = timeValuesOf(times);
    const newest = this.newest;
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const time = timeValues === null ? 0 : timeValues[row];
      if (!newest.accepts(time)) continue;
      const materialized = materialize(batch, row, this.keepNulls);
      this.bytes += rowBytes(materialized);
      newest.push({ time, row: materialized });
    }
  }

  heldBytes(): number {
    return this.bytes;
  }

  takeStreamed(): null {
    return null;
  }

  result(): BoundaryResult {
    return { newest: this.newest.sorted(), sorted: null, all: null, partial: null };
  }
}

/** Export mode: every row, handed over by each ack. */
class StreamSink implements ResultSink {
  readonly newest = null;
  /** Rows found and not yet handed over by an ack. */
  private streamed: TimedRow[] = [];

  constructor(private readonly keepNulls: boolean) {}

  collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    const timeValues = timeValuesOf(times);
    const streamedFrom = this.streamed.length;
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const time = timeValues === null ? 0 : timeValues[row];
      this.streamed.push({ time, row: materialize(batch, row, this.keepNulls) });
    }
    sortNewestFirst(this.streamed, streamedFrom);
  }

  heldBytes(): number {
    return 0;
  }

  takeStreamed(): TimedRow[] {
    const rows = this.streamed;
    this.streamed = [];
    return rows;
  }

  result(): BoundaryResult {
    return { newest: null, sorted: null, all: null, partial: null };
  }
}

/** A `sorted` boundary's first rows in the sort order. */
class SortedSink implements ResultSink {
  readonly newest = null;
  private readonly rows: SortedRows;

  constructor(
    private readonly keys: SortKey[],
    count: number,
    private readonly keepNulls: boolean,
  ) {
    this.rows = new SortedRows(
      keys.map((key) => key.direction),
      count,
    );
  }

  /** The sort keys are evaluated for every selected row; only rows that enter the first N are built. */
  collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    const timeValues = timeValuesOf(times);
    const keyColumns = this.keys.map((key) => key.expr.evaluate(batch, sel, n));
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const time = timeValues === null ? 0 : timeValues[row];
      const keys = keyColumns.map((column) => valueAt(column, row));
      if (!this.rows.accepts(keys, time)) continue;
      this.rows.push({ time, keys, row: materialize(batch, row, this.keepNulls) });
    }
  }

  heldBytes(): number {
    return this.rows.bytes;
  }

  takeStreamed(): null {
    return null;
  }

  result(): BoundaryResult {
    return { newest: null, sorted: this.rows.sorted(), all: null, partial: null };
  }
}

/** Every row, for the coordinator's operators. */
class AllRowsSink implements ResultSink {
  readonly newest = null;
  private readonly all: TimedRow[] = [];
  private bytes = 0;

  constructor(private readonly keepNulls: boolean) {}

  collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    const timeValues = timeValuesOf(times);
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const time = timeValues === null ? 0 : timeValues[row];
      const materialized = materialize(batch, row, this.keepNulls);
      this.bytes += rowBytes(materialized);
      this.all.push({ time, row: materialized });
    }
  }

  heldBytes(): number {
    return this.bytes;
  }

  takeStreamed(): null {
    return null;
  }

  result(): BoundaryResult {
    return { newest: null, sorted: null, all: this.all, partial: null };
  }
}

/** Partial stats groups. */
class StatsSink implements ResultSink {
  readonly newest = null;

  constructor(private readonly accumulator: StatsAccumulator) {}

  collect(batch: ColumnBatch, sel: Uint32Array, n: number, times: Column | undefined): void {
    this.accumulator.add(batch, sel, n, times);
  }

  heldBytes(): number {
    return this.accumulator.approximateBytes();
  }

  takeStreamed(): null {
    return null;
  }

  result(): BoundaryResult {
    return { newest: null, sorted: null, all: null, partial: this.accumulator.toPartial() };
  }
}

/**
 * The sink of a boundary. `page`: the rows an events page needs (offset + limit); `stream`:
 * export mode, where events are handed over as found instead of kept.
 */
export function resultSinkFor(boundary: Boundary, options: { page: number; stream: boolean; keepNulls: boolean }): ResultSink {
  const { keepNulls } = options;
  switch (boundary.kind) {
    case 'events':
      return options.stream ? new StreamSink(keepNulls) : new NewestSink(options.page, keepNulls);
    case 'head':
      return new NewestSink(boundary.count, keepNulls);
    case 'sorted':
      return new SortedSink(boundary.keys, boundary.count ?? options.page, keepNulls);
    case 'rows':
      return new AllRowsSink(keepNulls);
    case 'stats':
      return new StatsSink(new StatsAccumulator(boundary.spec));
  }
}

/** Sorts `rows[from..]` newest first, in place. */
function sortNewestFirst(rows: TimedRow[], from: number): void {
  if (rows.length - from < 2) return;
  const part = rows.slice(from).sort((a, b) => b.time - a.time);
  for (let i = 0; i < part.length; i++) rows[from + i] = part[i];
}
