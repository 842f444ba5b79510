/**
 * Per-event refusals: why an ingest path refuses one event while it accepts the rest of the request,
 * and the check every parser runs on an event it has mapped. Nothing is stored in part: an event
 * whose time retention would delete at once, whose time is too far ahead, that has more fields than
 * a row may carry, or that holds a number float64 cannot represent is refused whole, with a reason.
 */
import type { FieldValue, LogEvent } from '../../storage/core/event';
import type { IngestContext } from './common';

/** Reason codes: the label of `trawl_ingest_events_refused_total` and the `code` of a reported error. */
export const REFUSAL_REASONS = ['too_old', 'too_far_in_future', 'too_many_fields', 'non_finite_number', 'invalid'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface Refusal {
  reason: RefusalReason;
  /** For the client: what was wrong and what would be accepted. */
  message: string;
}

/** Refused events of one request by reason (absent: none). */
export type RefusalCounts = Partial<Record<RefusalReason, number>>;

/**
 * Fields one event may carry (flattened names, labels included). Each name is a column of the
 * segment the row lands in, with its own blocks and header statistics: a runaway document would
 * otherwise add thousands of columns. Elasticsearch refuses such documents too
 * (`index.mapping.total_fields.limit`, also 1000).
 */
export const MAX_FIELDS_PER_EVENT = 1000;

export function isRefusal(value: LogEvent | Refusal): value is Refusal {
  return (value as Partial<Refusal>).reason !== undefined;
}

export function invalid(message: string): Refusal {
  return { reason: 'invalid', message };
}

/** A field whose number JSON can write but float64 cannot hold (`1e400` parses to Infinity). */
export function nonFiniteNumber(name: string): Refusal {
  return {
    reason: 'non_finite_number',
    message: `field '${shortName(name)}' holds a number outside the 64-bit floating-point range (such as 1e400): send it as a string to keep it`,
  };
}

export function countRefusal(counts: RefusalCounts, refusal: Refusal): void {
  counts[refusal.reason] = (counts[refusal.reason] ?? 0) + 1;
}

/**
 * The check every mapped event passes before it is accepted: its time within the context's window
 * (see ingestContext in common.ts), at most MAX_FIELDS_PER_EVENT fields, no non-finite number.
 */
export function checkEvent(ev: LogEvent, ctx: IngestContext): Refusal | null {
  if (ev.time < ctx.oldestMicros) {
    return {
      reason: 'too_old',
      message: `event time ${isoTime(ev.time)} is older than retention allows: the oldest time accepted now is ${isoTime(ctx.oldestMicros)} (retention would delete the event at once)`,
    };
  }
  if (ev.time > ctx.newestMicros) {
    return {
      reason: 'too_far_in_future',
      message: `event time ${isoTime(ev.time)} is further ahead than ingest.max_future allows: the newest time accepted now is ${isoTime(ctx.newestMicros)}`,
    };
  }
  return checkFields(ev.fields);
}

function checkFields(fields: Record<string, FieldValue>): Refusal | null {
  let count = 0;
  for (const name in fields) {
    const value = fields[name];
    if (typeof value === 'number' && value - value !== 0) return nonFiniteNumber(name);
    count++;
  }
  if (count <= MAX_FIELDS_PER_EVENT) return null;
  return {
    reason: 'too_many_fields',
    message: `the event has ${count} fields (flattened names count); at most ${MAX_FIELDS_PER_EVENT} are stored per event: send fewer keys, or keep the rest as JSON text in one string field`,
  };
}

/** An event time (valid event micros) as ISO 8601 with its microseconds. */
function isoTime(micros: number): string {
  const text = new Date(Math.floor(micros / 1000)).toISOString();
  return `${text.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}

function shortName(name: string): string {
  return name.length <= 100 ? name : `${name.slice(0, 100)}...`;
}
