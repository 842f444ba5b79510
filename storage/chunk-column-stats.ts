/**
 * A buffered chunk's fields summarised as a segment header summarises its columns (ColumnStats:
 * counts, range, sum, sketch, top values), so the catalog folds buffered rows the way it folds
 * segments. A chunk does not change once built: each is summarised once (the write buffer holds
 * up to millions of rows, and `GET /fields` reads it on every call).
 */
import type { FieldValue } from './core/event';
import { unpackStrings, type ChunkField, type EventChunk, type PackedStrings } from './buffer/event-chunk';
import type { ColumnStats } from './segment/header';
import { TopCounts } from './segment/top-values';
import { ValueSketch } from './segment/value-sketch';

const summaries = new WeakMap<EventChunk, ColumnStats[]>();

export function chunkColumnStats(chunk: EventChunk): ColumnStats[] {
  let known = summaries.get(chunk);
  if (known === undefined) summaries.set(chunk, (known = chunk.fields.map((field) => fieldStats(field, chunk.count))));
  return known;
}

class StatsBuilder {
  readonly counts = { string: 0, number: 0, integer: 0, boolean: 0 };
  min: number | null = null;
  max: number | null = null;
  minString: string | null = null;
  maxString: string | null = null;
  sum = 0;
  readonly sketch = new ValueSketch();
  readonly top = new TopCounts();

  string(value: string, count: number): void {
    this.counts.string += count;
    this.top.add(value, count);
    if (this.minString === null || value < this.minString) this.minString = value;
    if (this.maxString === null || value > this.maxString) this.maxString = value;
  }

  number(value: number): void {
    if (value - value !== 0) return;
    this.counts.number++;
    if (Number.isInteger(value)) this.counts.integer++;
    if (this.min === null || value < this.min) this.min = value;
    if (this.max === null || value > this.max) this.max = value;
    this.sum += value;
    this.sketch.add(value);
    const countable = TopCounts.countable(value);
    if (countable !== null) this.top.add(countable, 1);
  }

  value(value: FieldValue): void {
    if (typeof value === 'string') this.string(value, 1);
    else if (typeof value === 'number') this.number(value);
    else if (typeof value === 'boolean') this.counts.boolean++;
  }

  finish(name: string, rows: number): ColumnStats {
    const present = this.counts.string + this.counts.number + this.counts.boolean;
    const top = this.counts.string + this.counts.integer > 0 ? this.top.finish() : null;
    return {
      name,
      counts: this.counts,
      nullCount: rows - present,
      min: this.min,
      max: this.max,
      minString: this.minString,
      maxString: this.maxString,
      dict: null,
      bytes: 0,
      ...(this.counts.number > 0 ? { sketch: this.sketch.toJSON(), ...(Number.isFinite(this.sum) ? { sum: this.sum } : {}) } : {}),
      ...(top === null ? {} : { top: top.top, topExact: top.exact }),
    };
  }
}

function fieldStats(field: ChunkField, rows: number): ColumnStats {
  const builder = new StatsBuilder();
  switch (field.type) {
    case 'string': {
      // Counted by code: each distinct string is handled once.
      const dict = unpackStrings(field.dict as PackedStrings);
      const codes = field.codes as Uint32Array;
      const uses = new Uint32Array(dict.length);
      for (let i = 0; i < codes.length; i++) uses[codes[i]]++;
      for (let code = 0; code < dict.length; code++) if (uses[code] > 0) builder.string(dict[code], uses[code]);
      break;
    }
    case 'number':
      for (const value of field.numbers as Float64Array) builder.number(value);
      break;
    case 'boolean':
      builder.counts.boolean += (field.numbers as Float64Array).length;
      break;
    case 'mixed':
      for (const value of field.mixed as FieldValue[]) builder.value(value);
      break;
  }
  return builder.finish(field.name, rows);
}
