/**
 * The contract between a block reader and what consumes its rows. A reader decodes late: first
 * the columns the leading filters read, then the rest only for rows that pass them. The consumer
 * (the query's operator pipeline) runs the filters in between, so the reader needs only this
 * description of them, and storage never learns the query language.
 */
import type { Column, ColumnBatch } from '../core/column';
import type { RangeOp } from '../segment/packed-select';

/** `field <op> number`, evaluated on a packed integer block's stored bytes instead of decoded values. */
export interface PackedComparison {
  field: string;
  op: RangeOp;
  constant: number;
}

/** What a reader needs to know of the filters that run first on every batch. */
export interface LeadingFilters {
  /**
   * Whether the columns the filters do not read wait until rows pass them: with filters, or when
   * only the newest rows are kept (a head without filters decodes `_time` first). Otherwise
   * every column is decoded at once.
   */
  lateColumns: boolean;
  /** The fields they read (decoded before the filters run). */
  fields: ReadonlySet<string>;
  /**
   * The first filter, when it is `field <op> number` and nothing after it reads the field: over a
   * packed integer block it runs on the stored bytes, and the field is never decoded.
   */
  packed: PackedComparison | null;
  /** Literals every match's `_raw` holds: searched as bytes before `_raw` becomes strings. */
  rawLiterals: readonly string[];
}

/** Block rows that alone can pass (a `_raw` search's hits); `offset`: the batch's first block row. */
export interface CandidateRows {
  rows: Uint32Array;
  offset: number;
}

/** Narrows a selection of `n` batch rows in place, standing in for the first leading filter; returns the new count. */
export type Prefilter = (sel: Uint32Array, n: number) => number;

/** The columns left out of the early batch, for the `n` selected rows (others may be decoded too). */
export type LateDecoder = (sel: Uint32Array, n: number) => Iterable<[string, Column]>;

/** Takes the rows of one block or buffered chunk, decoded late. */
export interface LateRows {
  /**
   * `batch` holds the early columns. With `candidates`, only those rows can pass. A `prefilter`
   * stands in for the first leading filter. `decodeLate` adds the other columns once the leading
   * filters have run.
   */
  takeLate(batch: ColumnBatch, candidates: CandidateRows | null, prefilter: Prefilter | null, decodeLate: LateDecoder): void;
}
