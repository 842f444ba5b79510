/**
 * A quantile sketch of a column's numbers, kept in segment headers for `GET /fields` (p50, p99)
 * without reading blocks. A number's magnitude falls in the bucket named by its float64 exponent
 * and the 6 leading bits of its mantissa (its high 32 bits shifted: no logarithm, as cheap as the
 * flush needs), so a bucket spans at most 1/64 of its lower bound, and its midpoint is within
 * 1/128 (0.8%) of every number in it. Negative numbers mirror that, zeros count apart. Sketches
 * merge by adding bucket counts, so any number of merges keeps the bound. Plain JSON arrays (the
 * header is JSON): dense counts from the first bucket on.
 */

/** Relative accuracy of a quantile read from a sketch. */
export const SKETCH_RELATIVE_ACCURACY = 1 / 128;

const MANTISSA_BITS = 6;
const SHIFT = 20 - MANTISSA_BITS;
/** Magnitudes below this count as zero. */
const MIN_MAGNITUDE = 1e-300;

const scratch = new Float64Array(1);
const words = new Uint32Array(scratch.buffer);
/** The word holding the sign, exponent and leading mantissa bits. */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

function keyOf(magnitude: number): number {
  scratch[0] = magnitude;
  return words[HIGH] >>> SHIFT;
}

/** The smallest magnitude of a bucket. */
function lowerBound(key: number): number {
  words[HIGH] = key << SHIFT;
  words[1 - HIGH] = 0;
  return scratch[0];
}

/** The value a bucket answers with: the middle of its range. */
const valueOf = (key: number): number => (lowerBound(key) + lowerBound(key + 1)) / 2;

/** A sketch as stored: `p`/`n` the positive and negative magnitudes as [first key, count, count, ...], `z` the zeros. */
export interface SketchJSON {
  p: number[];
  n: number[];
  z: number;
}

/** Bucket counts over a run of keys, grown as keys arrive. */
class BucketStore {
  private counts = new Float64Array(0);
  private offset = 0;
  total = 0;

  add(key: number, count: number): void {
    if (this.counts.length === 0) {
      this.counts = new Float64Array(64);
      this.offset = key - 32;
    } else if (key < this.offset || key >= this.offset + this.counts.length) this.grow(key);
    this.counts[key - this.offset] += count;
    this.total += count;
  }

  private grow(key: number): void {
    const low = Math.min(key, this.offset);
    const high = Math.max(key, this.offset + this.counts.length - 1);
    const size = Math.max(this.counts.length * 2, high - low + 1 + 32);
    const offset = key < this.offset ? high - size + 1 : low;
    const counts = new Float64Array(size);
    counts.set(this.counts, this.offset - offset);
    this.counts = counts;
    this.offset = offset;
  }

  /** Keys with a count, ascending, and their counts. */
  *entries(): Generator<[number, number]> {
    for (let i = 0; i < this.counts.length; i++) if (this.counts[i] > 0) yield [this.offset + i, this.counts[i]];
  }

  toJSON(): number[] {
    let first = -1;
    let last = -1;
    for (let i = 0; i < this.counts.length; i++) {
      if (this.counts[i] === 0) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0) return [];
    return [this.offset + first, ...this.counts.subarray(first, last + 1)];
  }

  addJSON(json: readonly number[]): void {
    for (let i = 1; i < json.length; i++) if (json[i] > 0) this.add(json[0] + i - 1, json[i]);
  }
}

export class ValueSketch {
  private readonly positive = new BucketStore();
  private readonly negative = new BucketStore();
  private zeros = 0;

  get count(): number {
    return this.positive.total + this.negative.total + this.zeros;
  }

  add(x: number): void {
    if (x > MIN_MAGNITUDE) this.positive.add(keyOf(x), 1);
    else if (x < -MIN_MAGNITUDE) this.negative.add(keyOf(-x), 1);
    else if (x === x) this.zeros++;
  }

  merge(json: SketchJSON): void {
    this.positive.addJSON(json.p);
    this.negative.addJSON(json.n);
    this.zeros += json.z;
  }

  /**
   * The value at 0-based rank floor(q * (count - 1)) of the numbers, within the relative accuracy,
   * clamped to `[min, max]` (the exact extremes, which answer the end ranks); null when empty.
   */
  quantile(q: number, min: number, max: number): number | null {
    const count = this.count;
    if (count === 0) return null;
    const rank = Math.floor(q * (count - 1));
    if (rank <= 0) return min;
    if (rank >= count - 1) return max;
    let seen = 0;
    let answer: number | null = null;
    // Most negative first: the negative store's keys descending.
    const negatives = [...this.negative.entries()].reverse();
    for (const [key, c] of negatives) {
      seen += c;
      if (seen > rank) {
        answer = -valueOf(key);
        break;
      }
    }
    if (answer === null) {
      seen += this.zeros;
      if (seen > rank) answer = 0;
    }
    if (answer === null) {
      for (const [key, c] of this.positive.entries()) {
        seen += c;
        if (seen > rank) {
          answer = valueOf(key);
          break;
        }
      }
    }
    return Math.min(max, Math.max(min, answer ?? max));
  }

  toJSON(): SketchJSON {
    return { p: this.positive.toJSON(), n: this.negative.toJSON(), z: this.zeros };
  }

  static fromJSON(json: SketchJSON): ValueSketch {
    const sketch = new ValueSketch();
    sketch.merge(json);
    return sketch;
  }
}
