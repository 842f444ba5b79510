/**
 * `POST /ingest/hec`: event-collector JSON, one object per line, or several objects concatenated on a line
 * (`{...}{...}` or `{...} {...}`, as the collector accepts). Pretty-printed objects spanning lines are not
 * supported: each line must hold whole objects.
 *
 * Mapping (docs/api.md): `event` -> `_raw`; `time` -> `_timestamp`, stored as the event time (`_timestamp` is an
 * alias the query layer resolves to `_time`); `host` -> `host`; `source` -> `_source`, stored as the field
 * `source`; `sourcetype` -> `_sourcetype`, stored as `sourcetype`; `index` -> index; `fields` -> flattened
 * fields. Envelope labels win over `fields`, which win over keys of an object event, which win over what
 * the text pipeline finds.
 */
import type { LogEvent } from '../../storage/core/event';
import { DEFAULT_INDEX, isValidIndexName } from '../../storage/core/event';
import { ApiError } from '../core/errors';
import { coerceLabels, hasField, isPlainObject, MAX_REPORTED_ERRORS, receivedAt, tryParseJson, type IngestContext } from './common';
import { applyDocument } from './document';
import { flattenInto, storedJsonText } from './flatten';
import { runPipeline } from './pipeline';
import {
  checkEvent,
  countRefusal,
  invalid,
  isRefusal,
  nonFiniteNumber,
  type Refusal,
  type RefusalCounts,
  type RefusalReason,
} from './refusal';
import { secondsToMicros } from './timevalue';

export interface HecError {
  /** 1-based line number. */
  line: number;
  code: RefusalReason;
  reason: string;
}

export interface HecResult {
  events: LogEvent[];
  /** Objects (or unparseable line remainders) that produced no event. */
  failed: number;
  /** The first MAX_REPORTED_ERRORS problems, in body order. */
  errors: HecError[];
  refused: RefusalCounts;
}

/** Defaults when the envelope names no source or sourcetype (the collector's own defaults are token-based). */
export const HEC_DEFAULT_SOURCE = 'http';
export const HEC_DEFAULT_SOURCETYPE = 'hec';

const LABELS = ['host', 'source', 'sourcetype'] as const;

/**
 * Bad objects (not JSON, not an object, no usable `event`, bad `time`, `index` or `fields`) and events
 * checkEvent refuses are counted with their reasons; the rest is accepted. An empty body gives no events.
 * A body with objects but no accepted event is the route's to refuse (noEventAccepted).
 */
export function parseHecLines(body: string, ctx: IngestContext): HecResult {
  const now = receivedAt(ctx);
  const result: HecResult = { events: [], failed: 0, errors: [], refused: {} };
  const fail = (line: number, refusal: Refusal): void => {
    result.failed++;
    countRefusal(result.refused, refusal);
    if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, code: refusal.reason, reason: refusal.message });
  };
  let lineNo = 0;
  let start = 0;
  while (start < body.length) {
    let nl = body.indexOf('\n', start);
    if (nl < 0) nl = body.length;
    lineNo++;
    const line = body.slice(start, nl).trim();
    start = nl + 1;
    if (line === '') continue;
    const whole = tryParseJson(line);
    const values = whole.ok ? [whole] : splitConcatenated(line);
    for (const v of values) {
      if (!v.ok) {
        fail(lineNo, invalid(`invalid JSON: ${v.message}`));
        continue;
      }
      const mapped = mapObject(v.value, now, ctx.pipeline);
      const out = isRefusal(mapped) ? mapped : (checkEvent(mapped, ctx) ?? mapped);
      if (isRefusal(out)) fail(lineNo, out);
      else result.events.push(out);
    }
  }
  return result;
}

/**
 * The answer to a body whose objects were all refused: 400 with the first reason, INVALID_JSON when it
 * is a malformed object (as the collector answers "Invalid data format"), else VALIDATION_ERROR; the
 * error object also carries `failed` and the reported `errors`.
 */
export function noEventAccepted(failed: number, errors: HecError[]): ApiError {
  const first = errors[0];
  const where = first === undefined ? '' : `: line ${first.line}: ${first.reason}`;
  return new ApiError(
    first === undefined || first.code === 'invalid' ? 'INVALID_JSON' : 'VALIDATION_ERROR',
    `no valid event in the body${where}`,
    { failed, errors },
  );
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Splits `{...}{...}` at top-level brace boundaries (string-aware) and parses each piece. Text that is not
 * an object (or an unterminated one) ends the line as one failure.
 */
export function splitConcatenated(line: string): Parsed[] {
  const out: Parsed[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13) {
      i++;
      continue;
    }
    const end = c === 123 ? objectEnd(line, i) : -1;
    if (end < 0) {
      const rest = tryParseJson(line.slice(i));
      out.push(rest.ok ? { ok: false, message: 'expected a JSON object' } : rest);
      break;
    }
    out.push(tryParseJson(line.slice(i, end)));
    i = end;
  }
  return out;
}

/** Index just past the `}` closing the object that opens at s[i], or -1. */
function objectEnd(s: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (inString) {
      if (c === 92) j++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return c === 125 ? j + 1 : -1;
    }
  }
  return -1;
}

/** One collector object -> event, or the reason it is refused. */
function mapObject(obj: unknown, now: number, pipeline: boolean): LogEvent | Refusal {
  if (!isPlainObject(obj)) return invalid('expected a JSON object');
  const event = obj.event;
  let raw: string;
  let doc: Record<string, unknown> | undefined;
  if (typeof event === 'string') {
    if (event.trim() === '') return invalid("'event' is blank");
    raw = event;
  } else if (typeof event === 'number' || typeof event === 'boolean') {
    if (typeof event === 'number' && !Number.isFinite(event)) return nonFiniteNumber('event');
    raw = String(event);
  } else if (typeof event === 'object' && event !== null) {
    const text = storedJsonText(event, 'event');
    if (typeof text !== 'string') return text;
    raw = text;
    if (isPlainObject(event)) doc = event;
  } else {
    return invalid("'event' is required");
  }

  let time = now;
  const timeGiven = obj.time !== undefined && obj.time !== null && obj.time !== '';
  if (timeGiven) {
    time = secondsToMicros(obj.time);
    if (Number.isNaN(time)) return invalid("'time' must be Unix seconds (number or numeric string) between 1970 and 2200");
  }

  let index = DEFAULT_INDEX;
  const idx = obj.index;
  if (idx !== undefined && idx !== null && idx !== '') {
    // Not String(idx): an object whose `toString` is not a function would throw.
    if (typeof idx !== 'string') return invalid("'index' must be a string");
    if (!isValidIndexName(idx)) return invalid(`invalid index name '${idx.slice(0, 140)}'`);
    index = idx;
  }

  const ev: LogEvent = { time, raw, index, fields: {} };
  const fields = ev.fields;
  for (const name of LABELS) {
    const v = obj[name];
    if (typeof v === 'number' && !Number.isFinite(v)) return nonFiniteNumber(name);
    if ((typeof v === 'string' && v !== '') || typeof v === 'number' || typeof v === 'boolean') fields[name] = String(v);
  }
  const extra = obj.fields;
  if (extra !== undefined && extra !== null) {
    if (!isPlainObject(extra)) return invalid("'fields' must be an object");
    const refusal = flattenInto(fields, extra, { keepExisting: true, refuseReserved: true });
    if (refusal !== null) return refusal;
  }
  let refusal: Refusal | null = null;
  if (doc !== undefined) {
    refusal = applyDocument(ev, doc, { pickTime: pipeline && !timeGiven, pickLabels: pipeline, nowMicros: now });
  } else if (pipeline && typeof event === 'string') {
    refusal = runPipeline(ev, now, timeGiven);
  }
  if (refusal !== null) return refusal;
  coerceLabels(fields);
  if (!hasField(fields, 'source')) fields.source = HEC_DEFAULT_SOURCE;
  if (!hasField(fields, 'sourcetype')) fields.sourcetype = HEC_DEFAULT_SOURCETYPE;
  return ev;
}
