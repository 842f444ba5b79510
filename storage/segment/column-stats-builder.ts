/**
 * ColumnStatsBuilder: folds the summaries of a column's stored blocks into the column's
 * ColumnStats for the segment header (counts, range, a small dictionary, bytes).
 */
import type { FieldValue } from '../core/event';
import type { ColumnStats } from './header';
import { MAX_HEADER_DICT } from './header';
import type { ColumnBlockSummary } from './column-encode';
import { rowText, type AsciiText } from './ascii-text';

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

  constructor(private readonly name: string) {}

  add(s: ColumnBlockSummary, bytes: number, values: ArrayLike<FieldValue | null>, start: number, end: number): void {
    this.addSummary(s, bytes);
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
    if (this.distinct === null || stats.counts.string === 0) return;
    if (stats.dict === null) this.distinct = null;
    else for (const v of stats.dict) this.distinct.add(v);
    if (this.distinct !== null && this.distinct.size > MAX_HEADER_DICT) this.distinct = null;
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
    };
  }
}
