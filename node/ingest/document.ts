/**
 * Mapping of a JSON document onto an event: shared by bulk-index documents, event-collector object events
 * and JSON lines in the text pipeline. Fields already on the event (set by the request) always win.
 */
import type { FieldValue, LogEvent } from '../../storage/event';
import { coerceLabels, isPlainObject, setIfAbsent } from './common';
import { flattenInto } from './flatten';
import { levelFromValue } from './level';
import { parseTimeValue } from './timevalue';

/** Keys tried for the event time, in this order; the first one that parses wins. */
export const TIME_KEYS = ['@timestamp', 'timestamp', 'time', 'ts', 'datetime'] as const;

export interface DocumentOptions {
  /** Take the event time from TIME_KEYS (false when the request already gave a time). */
  pickTime: boolean;
  /** Take `level` and `host` from their common keys. */
  pickLabels: boolean;
  nowMicros: number;
}

/** `a.b` from a document written either nested (`{a: {b}}`) or with a dotted key (`{"a.b": ...}`). */
function dotted(doc: Record<string, unknown>, a: string, b: string): unknown {
  const direct = doc[`${a}.${b}`];
  if (direct !== undefined) return direct;
  const outer = doc[a];
  return isPlainObject(outer) ? outer[b] : undefined;
}

function own(doc: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}

/** The document's time from TIME_KEYS, or NaN. */
export function documentTime(doc: Record<string, unknown>, nowMicros: number): number {
  for (const key of TIME_KEYS) {
    const v = own(doc, key);
    if (v === undefined || v === null) continue;
    const t = parseTimeValue(v, nowMicros);
    if (!Number.isNaN(t)) return t;
  }
  return NaN;
}

/** `level` from `level`, `log.level` or `severity` (strings normalized, pino numbers named). */
export function documentLevel(doc: Record<string, unknown>): string | undefined {
  return levelFromValue(own(doc, 'level')) ?? levelFromValue(dotted(doc, 'log', 'level')) ??
    levelFromValue(own(doc, 'severity'));
}

/** `host` from a string `host` or `host.name` (Elastic Common Schema). */
export function documentHost(doc: Record<string, unknown>): string | undefined {
  const h = own(doc, 'host');
  if (typeof h === 'string') return h;
  const name = dotted(doc, 'host', 'name');
  return typeof name === 'string' ? name : undefined;
}

/**
 * Applies `doc` to `ev`: the picked labels first (so that `level: "WARNING"` is stored as `warn`), then every
 * key flattened, without overwriting what the event already has. The time key stays as a field too.
 */
export function applyDocument(ev: LogEvent, doc: Record<string, unknown>, opts: DocumentOptions): void {
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
  flattenInto(fields, doc, { keepExisting: true });
  coerceLabels(fields);
}
