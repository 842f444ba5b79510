/**
 * The coordinator part: merge what shards produced, run the remaining stages on rows, and shape
 * the answer of docs/api.md (events newest first, or aggregate columns and rows), paged by offset/limit.
 */
import type { QueryPlan, RowOp, TopFinish } from '../plan/plan';
import type { StaticType, Value } from '../value';
import { formatTime } from '../value';
import { applyBatchOp } from './batch-ops';
import { batchToRows, dedupRows, formatRow, rowsToBatch, sortRows, type Row, type TimedRow } from './rows';
import type { OpStats } from './shard-session';
import type { KeyedRow } from './sorted-rows';
import { StatsAccumulator } from './stats';
import { rankTop } from './top-ranking';
import { fullSelection } from './vectors';

/** The page of the answer a request asked for. */
export interface ResultPage {
  offset: number;
  limit: number;
}

/** The merged shard output the coordinator finishes. */
export interface ShardOutput {
  matched: number;
  newest: TimedRow[] | null;
  /** A `sorted` boundary's first rows over all shards, in order. */
  sorted: KeyedRow[] | null;
  all: TimedRow[] | null;
  /** A `stats` boundary's groups, every shard's partial merged (null for other boundaries). */
  stats: StatsAccumulator | null;
  opStats: OpStats[];
}

export type QueryResultData =
  | { type: 'events'; events: Row[]; total: number; has_more: boolean }
  | { type: 'aggregate'; columns: string[]; rows: Value[][]; total_rows: number; has_more: boolean };

/** Well-known event fields first, in this order; the rest as they come. */
const EVENT_FIELD_ORDER = ['_time', '_raw', 'index', 'source', 'sourcetype', 'host', 'level'];

function orderEventFields(row: Row): Row {
  const out: Row = {};
  for (const name of EVENT_FIELD_ORDER) if (name in row) out[name] = row[name];
  for (const name in row) if (!(name in out)) out[name] = row[name];
  return out;
}

function statsRowsToObjects(accumulator: StatsAccumulator, top: TopFinish | null): Row[] {
  const names = [...accumulator.spec.keys.map((key) => key.name), ...accumulator.spec.aggregates.map((aggregate) => aggregate.name)];
  const toObject = (values: Value[]): Row => {
    const row: Row = {};
    names.forEach((name, i) => (row[name] = values[i]));
    return row;
  };
  if (top === null) return accumulator.rows().map(toObject);
  // Only the rows `top` keeps become objects (a high-cardinality field has many groups).
  return rankTop(accumulator, top).map(({ values, percent }) => ({ ...toObject(values), percent }));
}

function applyRowOp(op: RowOp, rows: Row[]): Row[] {
  switch (op.kind) {
    case 'head':
      return rows.slice(0, op.count);
    case 'tail':
      return rows.slice(Math.max(0, rows.length - op.count));
    case 'dedup':
      return dedupRows(rows, op.fields);
    case 'sort':
      return sortRows(rows, op.keys);
    case 'stats': {
      const accumulator = new StatsAccumulator(op.spec);
      const batch = rowsToBatch(rows);
      accumulator.add(batch, fullSelection(rows.length), rows.length);
      return statsRowsToObjects(accumulator, op.top);
    }
    case 'topFinish':
      return rows;
    case 'batch': {
      const batch = rowsToBatch(rows);
      const sel = fullSelection(rows.length);
      const n = applyBatchOp(op.op, batch, sel, rows.length);
      return batchToRows(batch, sel, n, op.op.kind === 'keep');
    }
  }
}

function formatCell(value: Value, type: StaticType): Value {
  return type === 'time' && typeof value === 'number' ? formatTime(value) : value;
}

/**
 * How an event of this plan's answer looks on every result path: times as ISO 8601, and the
 * well-known fields first unless a `keep` chose the order.
 */
export function eventFormatter(plan: QueryPlan): (row: Row) => Row {
  const ordered =
    !plan.shardOps.some((op) => op.kind === 'keep') && !plan.rowOps.some((op) => op.kind === 'batch' && op.op.kind === 'keep');
  return (row) => {
    const formatted = formatRow(row, plan.finalTypes);
    return ordered ? orderEventFields(formatted) : formatted;
  };
}

export function finishResult(plan: QueryPlan, shard: ShardOutput, options: ResultPage): QueryResultData {
  let rows: Row[];
  let total: number | null = null;
  const boundary = plan.boundary;
  if (boundary.kind === 'stats') {
    rows = statsRowsToObjects(shard.stats ?? new StatsAccumulator(boundary.spec), boundary.top);
  } else if (boundary.kind === 'events') {
    rows = (shard.newest ?? []).map((timed) => timed.row);
    total = shard.matched;
  } else if (boundary.kind === 'head') {
    rows = (shard.newest ?? []).map((timed) => timed.row).slice(0, boundary.count);
  } else if (boundary.kind === 'sorted') {
    rows = (shard.sorted ?? []).map((keyed) => keyed.row);
    // A last-stage sort keeps only the page: every match still counts.
    if (boundary.count === null) total = shard.matched;
  } else {
    const all = shard.all ?? [];
    all.sort((a, b) => b.time - a.time);
    rows = all.map((timed) => timed.row);
  }
  for (const op of plan.rowOps) rows = applyRowOp(op, rows);

  const { offset, limit } = options;
  if (plan.resultKind === 'aggregate') {
    const columns =
      plan.columns.length > 0
        ? plan.columns
        : [...new Set(rows.flatMap((row) => Object.keys(row)))].map((name) => ({ name, type: plan.finalTypes.get(name) ?? 'any' }));
    const page = rows.slice(offset, offset + limit);
    return {
      type: 'aggregate',
      columns: columns.map((column) => column.name),
      rows: page.map((row) => columns.map((column) => formatCell(column.name in row ? row[column.name] : null, column.type))),
      total_rows: rows.length,
      has_more: offset + page.length < rows.length,
    };
  }
  const matched = total ?? rows.length;
  const page = rows.slice(offset, offset + limit);
  return {
    type: 'events',
    events: page.map(eventFormatter(plan)),
    total: matched,
    has_more: offset + page.length < matched,
  };
}
