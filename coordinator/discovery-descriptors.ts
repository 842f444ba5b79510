/**
 * Field and source descriptors (docs/api.md, "Fields and sources") from a merged catalog part.
 * A field's type is the type most of its values have (ties: string, then float, integer,
 * boolean); a string field whose smallest and largest values in every segment are ISO 8601
 * timestamps is `datetime`, and so is `_time`. Numbers report min, max, avg and the sketch's
 * p50 and p99; datetimes their first and last instant; strings and integers their top values.
 */
import { TIME_COLUMN } from '../storage/core/event';
import { ValueSketch } from '../storage/segment/value-sketch';
import type { CatalogPart, FieldPart, SourcePart } from './catalog-parts';

/** How many top values a field descriptor lists. */
export const TOP_VALUES_LISTED = 10;

export type FieldType = 'string' | 'integer' | 'float' | 'boolean' | 'datetime';

export interface FieldDescriptor {
  name: string;
  type: FieldType;
  count: number;
  coverage: number;
  min?: number | string;
  max?: number | string;
  avg?: number;
  p50?: number;
  p99?: number;
  top_values?: { value: string | number; count: number }[];
}

export interface SourceDescriptor {
  name: string;
  event_count: number;
  first_event: string;
  last_event: string;
  rate: number;
  storage_bytes: number;
}

const isoOfMicros = (micros: number): string => new Date(Math.floor(micros / 1000)).toISOString();

export function fieldTypeOf(part: FieldPart): FieldType {
  if (part.name === TIME_COLUMN) return 'datetime';
  const { string, integer, float, boolean } = part.types;
  const most = Math.max(string, integer, float, boolean);
  if (string === most) return part.isoStrings && part.minString !== null ? 'datetime' : 'string';
  if (float === most) return 'float';
  if (integer === most) return 'integer';
  return 'boolean';
}

export function fieldDescriptor(part: FieldPart, totalEvents: number): FieldDescriptor {
  const type = fieldTypeOf(part);
  const out: FieldDescriptor = {
    name: part.name,
    type,
    count: part.count,
    coverage: totalEvents > 0 ? Math.min(1, part.count / totalEvents) : 0,
  };
  if (type === 'datetime') {
    if (part.name === TIME_COLUMN) {
      if (part.min !== null && part.max !== null) Object.assign(out, { min: isoOfMicros(part.min), max: isoOfMicros(part.max) });
    } else if (part.minString !== null && part.maxString !== null) {
      out.min = new Date(Date.parse(part.minString)).toISOString();
      out.max = new Date(Date.parse(part.maxString)).toISOString();
    }
  }
  if ((type === 'integer' || type === 'float') && part.min !== null && part.max !== null) {
    out.min = part.min;
    out.max = part.max;
    const numbers = part.types.integer + part.types.float;
    if (part.sum !== null && numbers > 0) out.avg = part.sum / numbers;
    if (part.sketch !== null) {
      const sketch = ValueSketch.fromJSON(part.sketch);
      out.p50 = sketch.quantile(0.5, part.min, part.max) ?? undefined;
      out.p99 = sketch.quantile(0.99, part.min, part.max) ?? undefined;
    }
  }
  if (type === 'string' || type === 'integer') {
    out.top_values = part.top.slice(0, TOP_VALUES_LISTED).map(([value, count]) => ({ value, count }));
  }
  return out;
}

/** The fields whose names start with `prefix`, by name; coverage against the events in range (`_time`'s count). */
export function fieldDescriptors(part: CatalogPart, prefix: string): FieldDescriptor[] {
  const totalEvents = part.fields.find((field) => field.name === TIME_COLUMN)?.count ?? 0;
  return part.fields.filter((field) => field.name.startsWith(prefix)).map((field) => fieldDescriptor(field, totalEvents));
}

/** Events per second over the source's span from first to last event (a span under a second counts as one second). */
export function sourceRate(source: Pick<SourcePart, 'eventCount' | 'firstEvent' | 'lastEvent'>): number {
  const seconds = Math.max(1, (source.lastEvent - source.firstEvent) / 1e6);
  return source.eventCount / seconds;
}

export function sourceDescriptors(part: CatalogPart): SourceDescriptor[] {
  return part.sources
    .filter((source) => source.eventCount > 0)
    .map((source) => ({
      name: source.name,
      event_count: source.eventCount,
      first_event: isoOfMicros(source.firstEvent),
      last_event: isoOfMicros(source.lastEvent),
      rate: sourceRate(source),
      storage_bytes: source.storageBytes,
    }));
}
