/**
 * `POST /ingest/raw`: newline-delimited text, one event per non-empty line, then the text pipeline.
 */
import type { LogEvent } from '../../storage/core/event';
import { DEFAULT_INDEX, isValidIndexName } from '../../storage/core/event';
import { invalidRequest } from '../core/errors';
import { hasField, MAX_REPORTED_ERRORS, receivedAt, type IngestContext } from './common';
import { runPipeline } from './pipeline';
import { checkEvent, countRefusal, type RefusalCounts, type RefusalReason } from './refusal';

/** Request headers of a raw ingest (`X-Source`, `X-Source-Type`, `X-Index`, `X-Host`), as given. */
export interface RawHeaders {
  source?: string;
  sourcetype?: string;
  index?: string;
  host?: string;
}

export const RAW_DEFAULT_SOURCE = 'http';
export const RAW_DEFAULT_SOURCETYPE = 'raw';

export interface RawResult {
  events: LogEvent[];
  /** Lines refused (checkEvent, or a JSON line value that cannot be stored exactly). */
  failed: number;
  /** The first MAX_REPORTED_ERRORS refusals; `line` is 1-based. */
  errors: { line: number; code: RefusalReason; reason: string }[];
  refused: RefusalCounts;
}

/**
 * Splits on `\n` (a trailing `\r` is dropped), skips blank lines. Header labels win over what the pipeline
 * finds in a line; a JSON line's own `source`/`sourcetype` win over the defaults `http`/`raw`.
 * An invalid `X-Index` fails the whole request; a line whose event checkEvent refuses (its time, as the
 * pipeline read it, outside the accepted window, or too many JSON fields) is counted with its reason.
 */
export function parseRawLines(body: string, headers: RawHeaders, ctx: IngestContext): RawResult {
  const index = headers.index === undefined || headers.index === '' ? DEFAULT_INDEX : headers.index;
  if (!isValidIndexName(index)) {
    throw invalidRequest(
      `invalid index name '${index.slice(0, 140)}': use lower-case letters, digits, '_', '-' or '.', not starting with '_' or '.'`,
    );
  }
  const now = receivedAt(ctx);
  const source = nonEmpty(headers.source);
  const sourcetype = nonEmpty(headers.sourcetype);
  const host = nonEmpty(headers.host);
  const result: RawResult = { events: [], failed: 0, errors: [], refused: {} };
  let start = 0;
  let line = 0;
  while (start <= body.length) {
    let nl = body.indexOf('\n', start);
    if (nl < 0) nl = body.length;
    line++;
    const end = nl > start && body.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    if (end > start && !isBlank(body, start, end)) {
      const ev: LogEvent = { time: now, raw: body.slice(start, end), index, fields: {} };
      const f = ev.fields;
      if (source !== undefined) f.source = source;
      if (sourcetype !== undefined) f.sourcetype = sourcetype;
      if (host !== undefined) f.host = host;
      const extracted = ctx.pipeline ? runPipeline(ev, now, false) : null;
      if (!hasField(f, 'source')) f.source = RAW_DEFAULT_SOURCE;
      if (!hasField(f, 'sourcetype')) f.sourcetype = RAW_DEFAULT_SOURCETYPE;
      const refusal = extracted ?? checkEvent(ev, ctx);
      if (refusal === null) result.events.push(ev);
      else {
        result.failed++;
        countRefusal(result.refused, refusal);
        if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, code: refusal.reason, reason: refusal.message });
      }
    }
    start = nl + 1;
  }
  return result;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function isBlank(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
