/**
 * Shared pieces of the ingest parsers: the parse context, field-name rules and small field helpers.
 */
import type { FieldValue } from '../../storage/core/event';
import { retentionCutoffMicros } from '../../storage/lifecycle/retention';
import { isValidEventMicros } from './datetime';

/** What every parser needs besides the body. Parsers are pure: the same body and context give the same events. */
export interface IngestContext {
  /** Receive time of the request, integer microseconds: the default event time and "now" for year inference. */
  receivedAtMicros: number;
  /** Config `ingest.pipeline` (default true): run the text pipeline on raw and event-collector lines. */
  pipeline: boolean;
  /** The oldest event time accepted (inclusive): older events are refused (refusal.ts). */
  oldestMicros: number;
  /** The newest event time accepted (inclusive): later events are refused. */
  newestMicros: number;
}

/**
 * The context of a request received at `receivedAtMs`. The oldest time accepted is the cutoff a
 * retention pass run at that moment uses, so that no accepted event is retention's to delete at
 * once; the newest is `maxFutureMs` (config `ingest.max_future`) ahead.
 */
export function ingestContext(receivedAtMs: number, pipeline: boolean, retentionMs: number, maxFutureMs: number): IngestContext {
  return {
    receivedAtMicros: receivedAtMs * 1000,
    pipeline,
    oldestMicros: retentionCutoffMicros(receivedAtMs, retentionMs),
    newestMicros: (receivedAtMs + maxFutureMs) * 1000,
  };
}

/** Per-request error lists are capped; counters still count every failure. */
export const MAX_REPORTED_ERRORS = 100;

/**
 * Names a payload cannot set as a plain field: the stored columns (`_time`, `_raw`, `index`), the aliases
 * the query layer resolves (`_timestamp`, `_source`, `_sourcetype`) and `__proto__`. Such keys are skipped;
 * their text stays in `_raw` on every path except the native `fields` object.
 */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set([
  '_time',
  '_raw',
  'index',
  '_timestamp',
  '_source',
  '_sourcetype',
  '__proto__',
]);

/**
 * Whether a field of this name is stored: not empty and not reserved. Every ingest path skips (or
 * refuses) other names, and a peer's share that holds one is refused (node/cluster/share-checks.ts).
 */
export function isStorableFieldName(name: string): boolean {
  return name !== '' && !RESERVED_FIELD_NAMES.has(name);
}

/** Label fields that are always strings (placement hashes host and source; discovery groups by source). */
export const LABEL_FIELDS = ['source', 'sourcetype', 'host', 'level'] as const;

export function hasField(fields: Record<string, FieldValue>, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(fields, name);
}

export function setIfAbsent(fields: Record<string, FieldValue>, name: string, value: FieldValue): void {
  if (!hasField(fields, name)) fields[name] = value;
}

/** Labels that arrive as numbers or booleans are stored as their text. */
export function coerceLabels(fields: Record<string, FieldValue>): void {
  for (const name of LABEL_FIELDS) {
    if (hasField(fields, name)) {
      const v = fields[name];
      if (typeof v !== 'string') fields[name] = String(v);
    }
  }
}

/** The receive time as a valid event time (a context outside the event range is a caller bug). */
export function receivedAt(ctx: IngestContext): number {
  const t = Math.trunc(ctx.receivedAtMicros);
  if (!isValidEventMicros(t)) throw new RangeError(`receivedAtMicros out of range: ${ctx.receivedAtMicros}`);
  return t;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON.parse with the failure as a message (deep nesting can also throw RangeError). */
export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/** A short quote of client text for error messages. */
export function excerpt(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}
