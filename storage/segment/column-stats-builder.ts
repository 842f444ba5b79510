/**
 * ColumnStatsBuilder: folds the summaries of a column's stored blocks into the column's
 * ColumnStats for the segment header (counts, range, a small dictionary, bytes), and what
 * `GET /fields` reads without blocks: the numbers' sum and quantile sketch, the top values.
 */
import { RAW_COLUMN, TIME_COLUMN, type FieldValue } from '../core/event';
import type { ColumnStats } from './header';
import { MAX_HEADER_DICT } from './header';
import type { ColumnBlockSummary } from './column-encode';
import { rowText, type AsciiText } from './ascii-text';
import { TopCounts } from './top-values';
import { ValueSketch } from './value-sketch';

/** Integer blocks whose values span at most this many are counted for the top values (an array, no hashing). */
const MAX_COUNTED_INT_RANGE = 1024;

/** Folds block summaries into one column's ColumnStats. */
export class ColumnStatsBuilder {
  private counts = { string: 0, number: 0, integer: 0, boolean: 0 };
  private nullCount = 0;
  private min: number | null = null;
  private max: number | null = null;
  private minString: string | null = null;
  private maxString: string | null = null;
  /** Distinct strings while there are at most MAX_HEADER_DICT; null past that. */
  private distinct: Set<string> | null = new Set();
  private bytes = 0;
  private sum = 0;
  /** False once a folded column lacked a sketch (a header written before they were kept). */
  private numbersKnown = true;
  private readonly sketch = new ValueSketch();
  private readonly top = new TopCounts();

  /** `_time` and `_raw` are no fields to discover: they keep no sum, sketch or top values. */
  private readonly detailed: boolean;

  constructor(private readonly name: string) {
    this.detailed = name !== TIME_COLUMN && name !== RAW_COLUMN;
  }

  add(s: ColumnBlockSummary, bytes: number, values: ArrayLike<FieldValue | null>, start: number, end: number): void {
    this.addSummary(s, bytes);
    if (s.counts.number > 0 && this.detailed) this.addNumbers(s, values, start, end);
    if (s.counts.string > 0 && this.detailed) {
      const counts = s.dictCounts;
      if (s.dict !== null && counts !== undefined) for (let j = 0; j < s.dict.length; j++) this.top.add(s.dict[j], counts[j]);
      else this.top.missed();
    }
    if (this.distinct === null || s.counts.string === 0) return;
    if (s.dict !== null) {
      for (const v of s.dict) this.distinct.add(v);
    } else {
      // Plain blocks hold > MAX_HEADER_DICT distinct strings; mixed ones are walked (rare).
      for (let i = start; i < end && this.distinct.size <= MAX_HEADER_DICT; i++) {
        const v = values[i];
        if (typeof v === 'string') this.distinct.add(v);
      }
    }
    if (this.distinct.size > MAX_HEADER_DICT) this.distinct = null;
  }

  /** add() for a plain block written from ASCII bytes (rows `order[start..end)`). */
  addAscii(s: ColumnBlockSummary, bytes: number, text: AsciiText, order: Uint32Array | null, start: number, end: number): void {
    this.addSummary(s, bytes);
    this.top.missed();
    for (let i = start; this.distinct !== null && i < end && this.distinct.size <= MAX_HEADER_DICT; i++) {
      this.distinct.add(rowText(text, order === null ? i : order[i]));
    }
    if (this.distinct !== null && this.distinct.size > MAX_HEADER_DICT) this.distinct = null;
  }

  /**
   * Folds in a whole column of another segment (its blocks' summaries folded already), as
   * compaction does when it keeps that segment's blocks; their stored size is added with addBytes.
   */
  addColumn(stats: ColumnStats): void {
    this.addSummary(stats, 0);
    if (stats.counts.number > 0 && this.detailed) {
      // A column without a sum overflowed it: the total does too.
      this.sum += stats.sum ?? NaN;
      if (stats.sketch === undefined) this.numbersKnown = false;
      else this.sketch.merge(stats.sketch);
    }
    if (stats.counts.string + stats.counts.integer > 0 && this.detailed) {
      if (stats.top === undefined) this.top.missed();
      else this.top.addEntries(stats.top, stats.topExact === true);
    }
    if (this.distinct === null || stats.counts.string === 0) return;
    if (stats.dict === null) this.distinct = null;
    else for (const v of stats.dict) this.distinct.add(v);
    if (this.distinct !== null && this.distinct.size > MAX_HEADER_DICT) this.distinct = null;
  }

  /**
   * The numbers of a block: their sum and sketch, and the integers' counts when they span a
   * narrow range (status codes, ports, levels); other integers leave the top values inexact.
   */
  private addNumbers(s: ColumnBlockSummary, values: ArrayLike<FieldValue | null>, start: number, end: number): void {
    const low = s.min as number;
    const counted = s.counts.integer === s.counts.number && Number.isSafeInteger(low) && (s.max as number) - low < MAX_COUNTED_INT_RANGE;
    const counts = counted ? new Float64Array((s.max as number) - low + 1) : null;
    let sum = 0;
    const sketch = this.sketch;
    for (let i = start; i < end; i++) {
      const v = values[i];
      if (typeof v !== 'number' || v - v !== 0) continue;
      sum += v;
      sketch.add(v);
      if (counts !== null) counts[v - low]++;
    }
    this.sum += sum;
    if (counts !== null) {
      for (let k = 0; k < counts.length; k++) if (counts[k] > 0) this.top.add(k + low === 0 ? 0 : k + low, counts[k]);
    } else if (s.counts.integer > 0) this.top.missed();
  }

  /** Rows where the column has no value (a segment that lacks it). */
  addNulls(rows: number): void {
    this.nullCount += rows;
  }

  /** Stored bytes that belong to no block summary (a framed block's frame table). */
  addBytes(bytes: number): void {
    this.bytes += bytes;
  }

  /** What a block summary and a column's stats both hold. */
  private addSummary(s: Pick<ColumnBlockSummary, 'counts' | 'nullCount' | 'min' | 'max' | 'minString' | 'maxString'>, bytes: number): void {
    this.counts.string += s.counts.string;
    this.counts.number += s.counts.number;
    this.counts.integer += s.counts.integer;
    this.counts.boolean += s.counts.boolean;
    this.nullCount += s.nullCount;
    this.bytes += bytes;
    if (s.min !== null && (this.min === null || s.min < this.min)) this.min = s.min;
    if (s.max !== null && (this.max === null || s.max > this.max)) this.max = s.max;
    if (s.minString !== null && (this.minString === null || s.minString < this.minString)) this.minString = s.minString;
    if (s.maxString !== null && (this.maxString === null || s.maxString > this.maxString)) this.maxString = s.maxString;
  }

  finish(): ColumnStats {
    const numbers =
      this.counts.number > 0 && this.detailed && this.numbersKnown
        ? { sketch: this.sketch.toJSON(), ...(Number.isFinite(this.sum) ? { sum: this.sum } : {}) }
        : {};
    const top = this.counts.string + this.counts.integer > 0 && this.detailed ? this.top.finish() : null;
    return {
      name: this.name,
      counts: this.counts,
      nullCount: this.nullCount,
      min: this.min,
      max: this.max,
      minString: this.minString,
      maxString: this.maxString,
      dict: this.distinct === null ? null : [...this.distinct].sort(),
      bytes: this.bytes,
      ...numbers,
      ...(top === null ? {} : { top: top.top, topExact: top.exact }),
    };
  }
}
