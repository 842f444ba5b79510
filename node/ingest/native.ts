/**
 * `POST /ingest`: a JSON array of `{ event, time?, source?, sourcetype?, host?, index?, fields? }`.
 * Elements are taken as given: no text pipeline (docs/api.md runs it on raw and event-collector lines only).
 */
import type { FieldValue, LogEvent } from '../../storage/core/event';
import { DEFAULT_INDEX, isValidIndexName } from '../../storage/core/event';
import { invalidJson } from '../core/errors';
import {
  coerceLabels,
  isPlainObject,
  isStorableFieldName,
  MAX_REPORTED_ERRORS,
  receivedAt,
  tryParseJson,
  type IngestContext,
} from './common';
import { flattenInto } from './flatten';
import { checkEvent, countRefusal, invalid, isRefusal, type Refusal, type RefusalCounts, type RefusalReason } from './refusal';
import { secondsToMicros } from './timevalue';

export interface NativeResult {
  events: LogEvent[];
  failed: number;
  /** The first MAX_REPORTED_ERRORS failures; `item` is the 0-based array position, `code` the refusal reason. */
  errors: { item: number; code: RefusalReason; reason: string }[];
  refused: RefusalCounts;
}

const LABELS = ['source', 'sourcetype', 'host'] as const;

/**
 * Whole-request failures (INVALID_JSON): not an array, or not valid JSON. Element failures are counted and
 * the rest is accepted: an element that is not an object, lacks a string `event`, has a `time` that is not a
 * number of Unix seconds between 1970 and 2200, a non-string label, an invalid `index`, or a non-object
 * `fields`; and any event checkEvent refuses (time outside the accepted window, too many fields, a
 * non-finite number). `null` (and `""` for labels and index) mean "not given".
 */
export function parseNativeBatch(body: string, ctx: IngestContext): NativeResult {
  const text = body.trim();
  if (text === '') throw invalidJson('empty body: expected a JSON array of events');
  if (text.charCodeAt(0) !== 91 || text.charCodeAt(text.length - 1) !== 93) {
    throw invalidJson(
      text.charCodeAt(0) === 123
        ? 'expected a JSON array of events, got a JSON object or NDJSON: wrap the events in [ ... ]'
        : 'expected a JSON array of events: the body must start with [ and end with ]',
    );
  }
  const parsed = tryParseJson(text);
  if (!parsed.ok) throw invalidJson(`invalid JSON: ${parsed.message}`);
  if (!Array.isArray(parsed.value)) throw invalidJson('expected a JSON array of events');
  const items: unknown[] = parsed.value;
  const now = receivedAt(ctx);
  const result: NativeResult = { events: [], failed: 0, errors: [], refused: {} };
  for (let i = 0; i < items.length; i++) {
    const mapped = mapElement(items[i], now);
    const out = isRefusal(mapped) ? mapped : (checkEvent(mapped, ctx) ?? mapped);
    if (isRefusal(out)) {
      result.failed++;
      countRefusal(result.refused, out);
      if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ item: i, code: out.reason, reason: out.message });
    } else {
      result.events.push(out);
    }
  }
  return result;
}

/**
 * `fields` itself when flattening would copy it unchanged: scalar values only, no empty or reserved
 * names. The body's parsed objects are ours, so the event can keep it and save a copy per event (the
 * common case: shippers send flat fields).
 */
function alreadyFlat(f: Record<string, unknown>): Record<string, FieldValue> | null {
  for (const key in f) {
    if (!Object.prototype.hasOwnProperty.call(f, key)) return null;
    const v = f[key];
    if (typeof v !== 'string' && typeof v !== 'boolean' && typeof v !== 'number') return null;
    if (!isStorableFieldName(key)) return null;
  }
  return f as Record<string, FieldValue>;
}

/** The event, or the reason the element failed. */
function mapElement(el: unknown, now: number): LogEvent | Refusal {
  if (!isPlainObject(el)) return invalid('item is not an object');
  const raw = el.event;
  if (raw === undefined || raw === null) return invalid("'event' is required (a string)");
  if (typeof raw !== 'string') return invalid("'event' must be a string");

  let time = now;
  const t = el.time;
  if (t !== undefined && t !== null) {
    if (typeof t !== 'number') return invalid("'time' must be a number (Unix seconds)");
    time = secondsToMicros(t);
    if (Number.isNaN(time)) return invalid("'time' out of range: expected Unix seconds between 1970 and 2200");
  }

  let index = DEFAULT_INDEX;
  const idx = el.index;
  if (idx !== undefined && idx !== null && idx !== '') {
    if (typeof idx !== 'string') return invalid("'index' must be a string");
    if (!isValidIndexName(idx)) return invalid(`invalid index name '${idx.slice(0, 140)}'`);
    index = idx;
  }

  let fields: Record<string, FieldValue> = {};
  const f = el.fields;
  if (f !== undefined && f !== null) {
    if (!isPlainObject(f)) return invalid("'fields' must be an object");
    const flat = alreadyFlat(f);
    if (flat !== null) fields = flat;
    else {
      const refusal = flattenInto(fields, f, { keepExisting: false, refuseReserved: true });
      if (refusal !== null) return refusal;
    }
  }
  // Top-level labels win over the same names inside `fields`.
  for (const name of LABELS) {
    const v = el[name];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') return invalid(`'${name}' must be a string`);
    fields[name] = v;
  }
  coerceLabels(fields);
  return { time, raw, index, fields };
}
