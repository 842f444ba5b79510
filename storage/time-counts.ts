/**
 * Rows per time interval without reading events: a histogram's counts. A segment's minutes that
 * lie inside the range are counted from its header (segment/minute-counts.ts); only the minutes
 * the range cuts, segments without minute counts and intervals finer than a minute decode the
 * `_time` column of the blocks concerned, and even then a block inside one interval counts whole.
 * Buffered rows are counted from their chunk's times.
 */
import { decodeColumnBlock } from './segment/column-decode';
import { MINUTE_MICROS } from './segment/minute-counts';
import type { SegmentHeader } from './segment/header';
import type { ScanPlan, ScanRequest, SegmentUnit } from './scan';

/** Reads the stored `_time` block of each (segment, row block) given (null: absent). */
export type TimeBlockReader = (blocks: readonly { unit: SegmentUnit; block: number }[]) => Promise<(Uint8Array | null)[]>;

export interface TimeCounts {
  /** Interval start (microseconds, a multiple of the step) -> rows. */
  counts: Map<number, number>;
  /** Rows counted from headers and whole blocks, without decoding. */
  rowsFromHeaders: number;
  /** `_time` blocks decoded. */
  blocksDecoded: number;
}

/** A time range the header cannot answer: its rows are counted from `_time`. */
type Cut = readonly [from: number, to: number];

class Counter {
  readonly result: TimeCounts = { counts: new Map(), rowsFromHeaders: 0, blocksDecoded: 0 };

  constructor(private readonly step: number) {}

  add(time: number, rows: number): void {
    const start = Math.floor(time / this.step) * this.step;
    this.result.counts.set(start, (this.result.counts.get(start) ?? 0) + rows);
  }

  sameInterval(a: number, b: number): boolean {
    return Math.floor(a / this.step) === Math.floor(b / this.step);
  }
}

/** The ranges of a segment's minutes that the request's range cuts; the whole minutes inside it are counted. */
function countWholeMinutes(header: SegmentHeader, request: Pick<ScanRequest, 'fromMicros' | 'toMicros'>, counter: Counter): Cut[] {
  const minutes = header.minuteCounts!;
  const cuts: Cut[] = [];
  for (let i = 0; i < minutes.rows.length; i++) {
    const rows = minutes.rows[i];
    if (rows === 0) continue;
    const start = minutes.first + i * MINUTE_MICROS;
    const end = start + MINUTE_MICROS;
    if (start >= request.fromMicros && end <= request.toMicros) {
      counter.add(start, rows);
      counter.result.rowsFromHeaders += rows;
    } else if (end > request.fromMicros && start < request.toMicros) {
      cuts.push([Math.max(start, request.fromMicros), Math.min(end, request.toMicros)]);
    }
  }
  return cuts;
}

/**
 * Counts the rows of a scan plan (planned with `request`, which names the range and keys) per
 * `stepMicros` interval aligned to the epoch. The caller releases the plan.
 */
export async function countByTime(
  plan: ScanPlan,
  request: Pick<ScanRequest, 'fromMicros' | 'toMicros'>,
  stepMicros: number,
  readTimes: TimeBlockReader,
): Promise<TimeCounts> {
  const counter = new Counter(stepMicros);
  const toDecode: { unit: SegmentUnit; block: number; cuts: readonly Cut[] }[] = [];
  const whole: Cut[] = [[request.fromMicros, request.toMicros]];
  for (const unit of plan.segments) {
    const { header } = unit;
    if (header.minuteCounts !== undefined && stepMicros % MINUTE_MICROS === 0) {
      const cuts = countWholeMinutes(header, request, counter);
      if (cuts.length === 0) continue;
      for (const block of unit.blocks) {
        const meta = header.blocks[block];
        if (cuts.some(([from, to]) => meta.maxTime >= from && meta.minTime < to)) toDecode.push({ unit, block, cuts });
      }
      continue;
    }
    for (const block of unit.blocks) {
      const meta = header.blocks[block];
      const inside = meta.minTime >= request.fromMicros && meta.maxTime < request.toMicros;
      if (inside && counter.sameInterval(meta.minTime, meta.maxTime)) {
        counter.add(meta.minTime, meta.rows);
        counter.result.rowsFromHeaders += meta.rows;
      } else {
        toDecode.push({ unit, block, cuts: whole });
      }
    }
  }
  const buffers = toDecode.length === 0 ? [] : await readTimes(toDecode);
  toDecode.forEach(({ cuts }, i) => {
    const stored = buffers[i];
    if (stored === null) return;
    const column = decodeColumnBlock(stored);
    if (column.kind !== 'time') throw new Error(`a _time block decoded as ${column.kind}`);
    counter.result.blocksDecoded++;
    for (const time of column.values) if (cuts.some(([from, to]) => time >= from && time < to)) counter.add(time, 1);
  });
  for (const unit of plan.buffered) {
    for (const time of unit.table.chunks[unit.chunk].times) {
      if (time >= request.fromMicros && time < request.toMicros) counter.add(time, 1);
    }
  }
  return counter.result;
}
