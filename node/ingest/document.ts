/**
 * Mapping of a JSON document onto an event: shared by bulk-index documents, event-collector object events
 * and JSON lines in the text pipeline. Fields already on the event (set by the request) always win.
 */
import type { FieldValue, LogEvent } from '../../storage/core/event';
import { coerceLabels, RESERVED_FIELD_NAMES, setIfAbsent } from './common';
import { HOST_KEYS, LEVEL_KEYS, lookup, MESSAGE_KEYS, TIME_KEYS, type LevelNumbers } from './document-keys';
import { flattenInto } from './flatten';
import { levelFromSyslogSeverity, levelFromValue } from './level';
import type { Refusal } from './refusal';
import { parseTimeValue } from './timevalue';

export interface DocumentOptions {
  /** Take the event time from TIME_KEYS (false when the request already gave a time). */
  pickTime: boolean;
  /** Take `level` and `host` from LEVEL_KEYS and HOST_KEYS. */
  pickLabels: boolean;
  nowMicros: number;
}

/** The document's time from TIME_KEYS, or NaN. */
export function documentTime(doc: Record<string, unknown>, nowMicros: number): number {
  for (const key of TIME_KEYS) {
    const v = lookup(doc, key);
    if (v === undefined || v === null) continue;
    const t = parseTimeValue(v, nowMicros);
    if (!Number.isNaN(t)) return t;
  }
  return NaN;
}

/** A syslog severity given as a number or decimal text (a full PRI reads as PRI % 8). */
function syslogLevel(v: unknown): string | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,4}$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? levelFromSyslogSeverity(n % 8) : undefined;
}

function levelOf(v: unknown, numbers: LevelNumbers): string | undefined {
  if (numbers === 'syslog') {
    const severity = syslogLevel(v);
    if (severity !== undefined) return severity;
  }
  return levelFromValue(v);
}

/** `level` from LEVEL_KEYS: text normalized, numbers read as each key says. */
export function documentLevel(doc: Record<string, unknown>): string | undefined {
  for (const { key, numbers } of LEVEL_KEYS) {
    const level = levelOf(lookup(doc, key), numbers);
    if (level !== undefined) return level;
  }
  return undefined;
}

/** `host` from the first string under HOST_KEYS. */
export function documentHost(doc: Record<string, unknown>): string | undefined {
  for (const key of HOST_KEYS) {
    const v = lookup(doc, key);
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/** The message text from the first non-empty string under MESSAGE_KEYS. */
export function documentMessage(doc: Record<string, unknown>): string | undefined {
  for (const key of MESSAGE_KEYS) {
    const v = lookup(doc, key);
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}

/**
 * True when the event's fields hold every top-level key of `doc` under its own name: none is a
 * reserved name, and none was taken by a label the request set (`source` from `_index`) with
 * another value. Only then may `_raw` be the message alone. (An event over the field limit is
 * refused whole, refusal.ts, so no key is ever cut.)
 */
export function fieldsHoldDocument(doc: Record<string, unknown>, fields: Record<string, FieldValue>): boolean {
  for (const key in doc) {
    if (!Object.prototype.hasOwnProperty.call(doc, key)) continue;
    const v = doc[key];
    if (v === null || v === undefined) continue;
    if (RESERVED_FIELD_NAMES.has(key)) return false;
    if (
      key === 'source' &&
      (typeof v !== 'object' || Array.isArray(v)) &&
      fields.source !== (typeof v === 'string' ? v : JSON.stringify(v))
    )
      return false;
  }
  return true;
}

/**
 * Applies `doc` to `ev`: the picked labels first (so that `level: "WARNING"` is stored as `warn`), then every
 * key flattened, without overwriting what the event already has. The time key stays as a field too.
 * Returns the refusal of a value that cannot be stored exactly (flatten.ts), else null.
 */
export function applyDocument(ev: LogEvent, doc: Record<string, unknown>, opts: DocumentOptions): Refusal | null {
  const fields: Record<string, FieldValue> = ev.fields;
  if (opts.pickLabels) {
    const level = documentLevel(doc);
    if (level !== undefined) setIfAbsent(fields, 'level', level);
    const host = documentHost(doc);
    if (host !== undefined) setIfAbsent(fields, 'host', host);
  }
  if (opts.pickTime) {
    const t = documentTime(doc, opts.nowMicros);
    if (!Number.isNaN(t)) ev.time = t;
  }
  const refusal = flattenInto(fields, doc, { keepExisting: true });
  coerceLabels(fields);
  return refusal;
}
