/**
 * The values of some rows of a block, listed in ascending order, as one column that is null at
 * every other row: what a decoder gives when a filter or a search needs only those rows.
 *
 * Why not a block-length array with each value at its row: a block has up to 16,384 rows, and an
 * array of that many pointers is 128 KiB, just over V8's largest regular object. V8 allocates it
 * as a large object, costly to allocate and fill: more than decoding a few rows of a block costs,
 * and a needle search would pay it for every column of every candidate block. Here the values are gathered in row order into the entries of a
 * dictionary column, and its codes, a typed array, say which row holds which: code k + 1 at the
 * k-th listed row, 0 (null) at the others. Entries may repeat; every reader of a dictionary
 * column goes by the entry's value.
 */
import type { Column } from '../core/column';
import type { FieldValue } from '../core/event';

export class ListedRows {
  /** The listed rows, ascending: `rows[0..count)`. */
  readonly rows: Uint32Array;
  count = 0;
  /** `entries[k + 1]`: the value of the k-th listed row ('' for null; entry 0 is the null code's placeholder). */
  private readonly entries: FieldValue[] = [''];
  private readonly codes: Uint16Array | Uint32Array;
  private strings = true;

  /** A column of `length` rows, of which at most `capacity` are listed. */
  constructor(
    readonly length: number,
    capacity = length,
  ) {
    this.rows = new Uint32Array(capacity);
    this.codes = capacity < 0xffff ? new Uint16Array(length) : new Uint32Array(length);
  }

  /** Lists `row` (greater than every row listed before) with its value. */
  add(row: number, value: FieldValue | null): void {
    const k = this.count++;
    this.rows[k] = row;
    this.entries.push(value ?? '');
    if (value === null) return;
    this.codes[row] = k + 1;
    if (typeof value !== 'string') this.strings = false;
  }

  /** The value of the k-th listed row. */
  valueOf(k: number): FieldValue | null {
    return this.codes[this.rows[k]] === 0 ? null : this.entries[k + 1];
  }

  /** Replaces the value of the k-th listed row (a non-null one). */
  setValue(k: number, value: string): void {
    if (this.codes[this.rows[k]] === 0) throw new Error('listed rows: a null row has no value to replace');
    this.entries[k + 1] = value;
  }

  /** Forgets the rows listed from the k-th on (their codes go back to null). */
  truncate(k: number): void {
    for (let i = k; i < this.count; i++) this.codes[this.rows[i]] = 0;
    this.entries.length = k + 1;
    this.count = k;
  }

  /** The listed rows, ascending. */
  listed(): Uint32Array {
    return this.rows.subarray(0, this.count);
  }

  /** The column: a dictionary one when every value is a string (the common case), else mixed values. */
  column(): Column {
    if (this.strings) return { kind: 'dict', dict: this.entries as string[], codes: this.codes };
    const values = new Array<FieldValue | null>(this.length).fill(null);
    for (let k = 0; k < this.count; k++) values[this.rows[k]] = this.valueOf(k);
    return { kind: 'mixed', values };
  }
}
