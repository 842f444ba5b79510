/**
 * `POST /ingest/raw`: newline-delimited text, one event per non-empty line, then the text pipeline.
 */
import type { LogEvent } from '../../storage/event';
import { DEFAULT_INDEX, isValidIndexName } from '../../storage/event';
import { invalidRequest } from '../errors';
import { hasField, receivedAt, type IngestContext } from './common';
import { runPipeline } from './pipeline';

/** Request headers of a raw ingest (`X-Source`, `X-Source-Type`, `X-Index`, `X-Host`), as given. */
export interface RawHeaders {
  source?: string;
  sourcetype?: string;
  index?: string;
  host?: string;
}

export const RAW_DEFAULT_SOURCE = 'http';
export const RAW_DEFAULT_SOURCETYPE = 'raw';

/**
 * Splits on `\n` (a trailing `\r` is dropped), skips blank lines. Header labels win over what the pipeline
 * finds in a line; a JSON line's own `source`/`sourcetype` win over the defaults `http`/`raw`.
 * An invalid `X-Index` fails the whole request.
 */
export function parseRawLines(body: string, headers: RawHeaders, ctx: IngestContext): { events: LogEvent[] } {
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
  const events: LogEvent[] = [];
  let start = 0;
  while (start <= body.length) {
    let nl = body.indexOf('\n', start);
    if (nl < 0) nl = body.length;
    const end = nl > start && body.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    if (end > start && !isBlank(body, start, end)) {
      const ev: LogEvent = { time: now, raw: body.slice(start, end), index, fields: {} };
      const f = ev.fields;
      if (source !== undefined) f.source = source;
      if (sourcetype !== undefined) f.sourcetype = sourcetype;
      if (host !== undefined) f.host = host;
      if (ctx.pipeline) runPipeline(ev, now, false);
      if (!hasField(f, 'source')) f.source = RAW_DEFAULT_SOURCE;
      if (!hasField(f, 'sourcetype')) f.sourcetype = RAW_DEFAULT_SOURCETYPE;
      events.push(ev);
    }
    start = nl + 1;
  }
  return { events };
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
