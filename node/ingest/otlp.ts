/**
 * `POST /otlp/v1/logs`: the JSON encoding of an OTLP ExportLogsServiceRequest.
 *
 * Mapping (docs/api.md's table plus the choices noted): timeUnixNano -> time (0/absent/invalid: observedTimeUnixNano,
 * then the receive time); body -> `_raw` (stringValue as is, other values as text: kvlist/array as JSON),
 * and a kvlist body's keys also become fields, flattened with dots like attributes;
 * severityText -> level (normalized, level.ts), else severityNumber by the OTLP ranges; resource
 * `service.name` -> source, `host.name` -> host, `deployment.environment` (or `.name`) lower-cased -> index
 * when a valid index name (else index `main` and the value kept as `resource.deployment.environment`);
 * other resource attributes -> `resource.<key>`; scope name/version -> `scope.name`/`scope.version`;
 * traceId/spanId -> `trace_id`/`span_id`; record attributes -> top-level fields. Resource labels and the
 * severity win over record attributes of the same name, and attributes over body keys. AnyValue kinds:
 * string, bool and double as such (non-finite doubles as their text), int64 exact (a number within 2^53,
 * else its decimal text), bytes as the base64 text OTLP JSON carries, arrays as JSON text. A record the
 * window or the field rules refuse (refusal.ts) is reported in the response's `partialSuccess`.
 */
import type { FieldValue, LogEvent } from '../../storage/core/event';
import { DEFAULT_INDEX, isValidIndexName } from '../../storage/core/event';
import { invalidJson, invalidRequest } from '../core/errors';
import {
  coerceLabels,
  isPlainObject,
  isStorableFieldName,
  MAX_REPORTED_ERRORS,
  receivedAt,
  RESERVED_FIELD_NAMES,
  tryParseJson,
  type IngestContext,
} from './common';
import { isValidEventMicros } from './datetime';
import { MAX_FLATTEN_DEPTH, reservedName, storedJsonText } from './flatten';
import { levelFromOtlpSeverity, normalizeLevel } from './level';
import { checkEvent, countRefusal, isRefusal, nonFiniteNumber, type Refusal, type RefusalCounts, type RefusalReason } from './refusal';
import { scaleDecimal } from './timevalue';

export interface OtlpResult {
  events: LogEvent[];
  /** Log records refused (the response's `partialSuccess.rejectedLogRecords`). */
  rejected: number;
  /** The first MAX_REPORTED_ERRORS refusals; `record` is the record's path in the request. */
  errors: { record: string; code: RefusalReason; reason: string }[];
  refused: RefusalCounts;
}

/** AnyValue -> plain JSON value (kvlist as object, int64 text as number when exact); undefined when empty. */
export function anyValueToJs(v: unknown, depth = 0): unknown {
  if (!isPlainObject(v) || depth > MAX_FLATTEN_DEPTH) return undefined;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) return intValue(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) return doubleValue(v.doubleValue);
  if (typeof v.bytesValue === 'string') return v.bytesValue; // already base64 in OTLP JSON
  if (isPlainObject(v.arrayValue)) {
    const values = v.arrayValue.values;
    return Array.isArray(values) ? values.map((x) => anyValueToJs(x, depth + 1) ?? null) : [];
  }
  if (isPlainObject(v.kvlistValue)) {
    const obj: Record<string, unknown> = {};
    const values = v.kvlistValue.values;
    if (Array.isArray(values)) {
      for (const kv of values) {
        if (isPlainObject(kv) && typeof kv.key === 'string' && kv.key !== '__proto__') {
          const x = anyValueToJs(kv.value, depth + 1);
          if (x !== undefined) obj[kv.key] = x;
        }
      }
    }
    return obj;
  }
  return undefined;
}

/**
 * A double as OTLP JSON writes it: a number, or a string (proto3 JSON): decimal text as its number,
 * and "NaN", "Infinity", "-Infinity" kept as that text, which a column can hold exactly. A
 * non-finite number (JSON `1e400`) is kept for checkEvent to refuse.
 */
function doubleValue(v: unknown): number | string | undefined {
  if (typeof v === 'number') return v;
  if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return v;
  if (typeof v === 'string' && /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(v)) return Number(v);
  return undefined;
}

/** int64 as number or decimal text: a number, or the text when it exceeds exact double range. */
function intValue(v: unknown): number | string | undefined {
  if (typeof v === 'number') return v; // a non-finite one is refused by checkEvent
  if (typeof v !== 'string' || !/^-?\d{1,20}$/.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
}

/** Fields of one event being built, and the first value that cannot be stored exactly (it refuses the event). */
interface Sink {
  fields: Record<string, FieldValue>;
  refusal: Refusal | null;
}

/**
 * Stores a converted AnyValue under `name`: scalars as is, objects flattened with dots, arrays as JSON.
 * With `keepExisting`, a field already set stays (body keys, whose text is also in `_raw`, where a
 * reserved name is only skipped); otherwise an empty or reserved name refuses the record, since an
 * attribute has no other place to keep it.
 */
function putValue(sink: Sink, name: string, v: unknown, depth: number, keepExisting = false): void {
  if (v === undefined || v === null || sink.refusal !== null) return;
  if (!keepExisting && !isStorableFieldName(name)) {
    sink.refusal = reservedName(name);
    return;
  }
  if (name === '') return;
  if (isPlainObject(v)) {
    if (depth < MAX_FLATTEN_DEPTH) {
      for (const k of Object.keys(v)) putValue(sink, `${name}.${k}`, v[k], depth + 1, keepExisting);
      return;
    }
    v = storedJsonText(v, name);
  } else if (Array.isArray(v)) v = storedJsonText(v, name);
  // A skipped name's value is never stored, so it cannot refuse the event.
  if (RESERVED_FIELD_NAMES.has(name) || (keepExisting && Object.prototype.hasOwnProperty.call(sink.fields, name))) return;
  if (typeof v === 'object') {
    sink.refusal = v as Refusal; // from storedJsonText: the text would not hold the value exactly
    return;
  }
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return;
  sink.fields[name] = v;
}

/** A structured body's keys as fields, flattened with dots like attributes; attributes of the same name win. */
function putBodyFields(sink: Sink, body: unknown): void {
  if (!isPlainObject(body) || !isPlainObject(body.kvlistValue)) return;
  const value = anyValueToJs(body);
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) putValue(sink, key, value[key], 0, true);
}

function bodyText(body: unknown): string | Refusal {
  const v = anyValueToJs(body);
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return storedJsonText(v, 'body');
  if (typeof v === 'number' && !Number.isFinite(v)) return nonFiniteNumber('body');
  return String(v);
}

/** Nanoseconds (decimal text or number) -> micros, NaN when absent, zero or out of range. */
export function nanosToMicros(v: unknown): number {
  let t: number;
  if (typeof v === 'string') t = scaleDecimal(v, -3);
  else if (typeof v === 'number' && Number.isFinite(v) && v >= 0) t = Math.round(v / 1000);
  else return NaN;
  return t > 0 && isValidEventMicros(t) ? t : NaN;
}

function attributes(v: unknown, where: string): { key: string; value: unknown }[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidRequest(`${where}.attributes must be an array`);
  const out: { key: string; value: unknown }[] = [];
  for (const a of v) {
    if (isPlainObject(a) && typeof a.key === 'string') out.push({ key: a.key, value: anyValueToJs(a.value) });
  }
  return out;
}

function list(v: unknown, where: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidRequest(`${where} must be an array`);
  return v;
}

function object(v: unknown, where: string): Record<string, unknown> {
  if (!isPlainObject(v)) throw invalidRequest(`${where} must be an object`);
  return v;
}

interface ResourceInfo {
  index: string;
  labels: Record<string, FieldValue>;
  /** A resource attribute that cannot be stored exactly refuses every record of the resource. */
  refusal: Refusal | null;
}

function resourceInfo(resource: unknown, where: string): ResourceInfo {
  const info: ResourceInfo = { index: DEFAULT_INDEX, labels: {}, refusal: null };
  if (resource === undefined || resource === null) return info;
  const sink: Sink = { fields: info.labels, refusal: null };
  for (const { key, value } of attributes(object(resource, where).attributes, where)) {
    const text =
      typeof value === 'string'
        ? value
        : (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean'
          ? String(value)
          : undefined;
    if (key === 'service.name' && text !== undefined) info.labels.source = text;
    else if (key === 'host.name' && text !== undefined) info.labels.host = text;
    else if ((key === 'deployment.environment' || key === 'deployment.environment.name') && text !== undefined) {
      const idx = text.toLowerCase();
      if (isValidIndexName(idx)) info.index = idx;
      else info.labels['resource.deployment.environment'] = text;
    } else putValue(sink, `resource.${key}`, value, 1);
  }
  info.refusal = sink.refusal;
  return info;
}

/**
 * OTLP JSON -> events. Invalid JSON or a non-object body: INVALID_JSON; a wrong shape: INVALID_REQUEST.
 * A record checkEvent refuses, or with a value that cannot be stored exactly, is counted with its reason.
 */
export function parseOtlpLogs(body: string, ctx: IngestContext): OtlpResult {
  const now = receivedAt(ctx);
  const parsed = tryParseJson(body.trim() === '' ? '{}' : body);
  if (!parsed.ok) throw invalidJson(`invalid JSON: ${parsed.message}`);
  if (!isPlainObject(parsed.value)) throw invalidJson('expected an OTLP ExportLogsServiceRequest JSON object');
  const result: OtlpResult = { events: [], rejected: 0, errors: [], refused: {} };
  const resourceLogs = list(parsed.value.resourceLogs, 'resourceLogs');
  resourceLogs.forEach((rlValue, r) => {
    const rl = object(rlValue, `resourceLogs[${r}]`);
    const res = resourceInfo(rl.resource, `resourceLogs[${r}].resource`);
    list(rl.scopeLogs, `resourceLogs[${r}].scopeLogs`).forEach((slValue, s) => {
      const where = `resourceLogs[${r}].scopeLogs[${s}]`;
      const sl = object(slValue, where);
      const scope = isPlainObject(sl.scope) ? sl.scope : {};
      list(sl.logRecords, `${where}.logRecords`).forEach((recValue, k) => {
        const record = `${where}.logRecords[${k}]`;
        const rec = object(recValue, record);
        const mapped = mapRecord(rec, res, scope, now, record);
        const out = isRefusal(mapped) ? mapped : (checkEvent(mapped, ctx) ?? mapped);
        if (!isRefusal(out)) {
          result.events.push(out);
          return;
        }
        result.rejected++;
        countRefusal(result.refused, out);
        if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ record, code: out.reason, reason: out.message });
      });
    });
  });
  return result;
}

function mapRecord(
  rec: Record<string, unknown>,
  res: ResourceInfo,
  scope: Record<string, unknown>,
  now: number,
  where: string,
): LogEvent | Refusal {
  let time = nanosToMicros(rec.timeUnixNano);
  if (Number.isNaN(time)) time = nanosToMicros(rec.observedTimeUnixNano);
  if (Number.isNaN(time)) time = now;
  const sink: Sink = { fields: {}, refusal: res.refusal };
  for (const { key, value } of attributes(rec.attributes, where)) putValue(sink, key, value, 0);
  putBodyFields(sink, rec.body);
  if (sink.refusal !== null) return sink.refusal;
  const raw = bodyText(rec.body);
  if (typeof raw !== 'string') return raw;
  const fields = sink.fields;
  Object.assign(fields, res.labels);
  if (typeof scope.name === 'string' && scope.name !== '') fields['scope.name'] = scope.name;
  if (typeof scope.version === 'string' && scope.version !== '') fields['scope.version'] = scope.version;
  if (typeof rec.traceId === 'string' && rec.traceId !== '') fields.trace_id = rec.traceId;
  if (typeof rec.spanId === 'string' && rec.spanId !== '') fields.span_id = rec.spanId;
  const level =
    (typeof rec.severityText === 'string' ? normalizeLevel(rec.severityText) : undefined) ??
    levelFromOtlpSeverity(severityNumber(rec.severityNumber));
  if (level !== undefined) fields.level = level;
  coerceLabels(fields);
  return { time, raw, index: res.index, fields };
}

/** Refusals named in a partialSuccess message; the count covers them all. */
const MESSAGE_REFUSALS = 10;

/**
 * The ExportLogsServiceResponse of a request with refused records: `rejectedLogRecords` (int64, so
 * a decimal string in OTLP JSON) and an `errorMessage` naming the first records and their reasons.
 */
export function partialSuccess(
  rejected: number,
  errors: OtlpResult['errors'],
): { partialSuccess: { rejectedLogRecords: string; errorMessage: string } } {
  const named = errors.slice(0, MESSAGE_REFUSALS).map((error) => `${error.record}: ${error.reason}`);
  const rest = rejected - named.length;
  const message = `${rejected} log record${rejected === 1 ? '' : 's'} refused: ${named.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}`;
  return { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage: message } };
}

/** severityNumber as a number or its enum name (`SEVERITY_NUMBER_WARN2`); 0 when unknown. */
function severityNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  const m = /^SEVERITY_NUMBER_(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)([234])?$/.exec(v);
  if (!m) return 0;
  const base = { TRACE: 1, DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 }[m[1] as 'TRACE'];
  return base + (m[2] ? Number(m[2]) - 1 : 0);
}
