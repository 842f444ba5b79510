/**
 * The text ingest pipeline, run on every raw line and every event-collector string event (config
 * `ingest.pipeline`):
 *  (a) a line holding one JSON object: its keys become fields (flattened), time, level and host come from
 *      their common keys (document.ts);
 *  (b) otherwise a leading timestamp (timestamp.ts) becomes the event time unless the request gave one;
 *  (c) `level` from the syslog PRI, a logcat priority letter or a severity word near the start (level.ts);
 *  (d) syslog lines also give `host` and `appname` when the header is unambiguous.
 * Nothing the request already set is overwritten. Cheap char checks pick the path; no regexes run per line.
 */
import type { FieldValue, LogEvent } from '../../storage/core/event';
import { hasField, isPlainObject, setIfAbsent } from './common';
import { isAlnumCode, isDigitCode } from './datetime';
import { applyDocument } from './document';
import { detectLevel, levelFromLogcatLetter, levelFromSyslogSeverity, type Level } from './level';
import type { Refusal } from './refusal';
import {
  detectAfterFirstToken,
  detectCommonLog,
  detectLeadingTimestamp,
  parseIsoAt,
  TS_LOGCAT,
  TS_SYSLOG,
  type TsMatch,
} from './timestamp';

/**
 * Runs the pipeline on `ev.raw`, updating `ev` in place. `ev.time` must already hold the request's time or
 * the receive time; `timeGiven` says whether the request gave it (then it is kept). Returns the refusal
 * of a JSON line value that cannot be stored exactly (flatten.ts), else null.
 */
export function runPipeline(ev: LogEvent, nowMicros: number, timeGiven: boolean): Refusal | null {
  const s = ev.raw;
  let i = 0;
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  const c = s.charCodeAt(i);
  if (c === 123 && lastNonSpace(s) === 125) {
    const json = applyJsonLine(ev, s, nowMicros, timeGiven);
    if (json !== false) return json;
  }

  let pri = -1;
  let ts: TsMatch | null;
  let rfc5424 = false;
  if (c === 60) {
    const p = readPri(s, i);
    if (p >= 0) {
      pri = p;
      i = s.indexOf('>', i) + 1;
      if (s.charCodeAt(i) === 49 && s.charCodeAt(i + 1) === 32) rfc5424 = true;
    }
  }
  if (rfc5424) {
    ts = rfc5424Header(s, i + 2, ev.fields);
  } else {
    ts = detectLeadingTimestamp(s, i, nowMicros);
    if (ts === null && pri < 0) ts = detectCommonLog(s, i) ?? detectAfterFirstToken(s, i);
  }
  if (ts !== null && !timeGiven) ev.time = ts.micros;

  const fields = ev.fields;
  const msgStart = ts !== null && ts.kind === TS_SYSLOG ? syslogHeader(s, ts.end, fields) : -1;
  if (!hasField(fields, 'level')) {
    let level: Level | undefined;
    if (pri >= 0) level = levelFromSyslogSeverity(pri);
    else if (ts !== null && ts.kind === TS_LOGCAT) level = logcatLevel(s, ts.end) ?? detectLevel(s, ts.end);
    else level = detectLevel(s, msgStart >= 0 ? msgStart : ts !== null ? ts.end : i);
    if (level !== undefined) fields.level = level;
  }
  return null;
}

function lastNonSpace(s: string): number {
  let j = s.length - 1;
  while (j >= 0) {
    const c = s.charCodeAt(j);
    if (c !== 32 && c !== 9 && c !== 13) return c;
    j--;
  }
  return -1;
}

/** False when the line is not a JSON object (a plain line), else what applyDocument returns. */
function applyJsonLine(ev: LogEvent, s: string, nowMicros: number, timeGiven: boolean): Refusal | null | false {
  let doc: unknown;
  try {
    doc = JSON.parse(s);
  } catch {
    return false; // `{` text that is not JSON: a plain line
  }
  if (!isPlainObject(doc)) return false;
  return applyDocument(ev, doc, { pickTime: !timeGiven, pickLabels: true, nowMicros });
}

/** `<N>` with N in 0..191 at s[i]: N, or -1. */
function readPri(s: string, i: number): number {
  let v = 0;
  let j = i + 1;
  while (j < i + 4 && isDigitCode(s.charCodeAt(j))) v = v * 10 + (s.charCodeAt(j++) - 48);
  if (j === i + 1 || s.charCodeAt(j) !== 62 || v > 191) return -1;
  return v;
}

/** Token of at most `max` printable non-space ASCII chars at s[i]: its end, or -1. */
function tokenEnd(s: string, i: number, max: number): number {
  let j = i;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c <= 32 || c > 126) break;
    j++;
  }
  return j === i || j - i > max ? -1 : j;
}

/**
 * RFC 5424 after `<PRI>1 `: TIMESTAMP HOSTNAME APP-NAME ... (`-` is the nil value). Returns the timestamp
 * (with `end` past the header fields read) and sets host/appname.
 */
function rfc5424Header(s: string, i: number, fields: Record<string, FieldValue>): TsMatch | null {
  let ts: TsMatch | null = null;
  let j: number;
  if (s.charCodeAt(i) === 45 && s.charCodeAt(i + 1) === 32) j = i + 1;
  else {
    ts = parseIsoAt(s, i, false);
    if (ts === null) return null;
    j = ts.end;
  }
  if (s.charCodeAt(j) !== 32) return ts;
  const hostEnd = tokenEnd(s, j + 1, 255);
  if (hostEnd < 0 || s.charCodeAt(hostEnd) !== 32) return ts;
  const appEnd = tokenEnd(s, hostEnd + 1, 48);
  if (appEnd < 0) return ts;
  const host = s.slice(j + 1, hostEnd);
  const app = s.slice(hostEnd + 1, appEnd);
  if (host !== '-') setIfAbsent(fields, 'host', host);
  if (app !== '-') setIfAbsent(fields, 'appname', app);
  if (ts !== null) ts.end = appEnd;
  return ts;
}

function isHostChar(c: number): boolean {
  return isAlnumCode(c) || c === 46 || c === 45 || c === 95 || c === 58;
}

function isTagChar(c: number): boolean {
  return isAlnumCode(c) || c === 46 || c === 45 || c === 95 || c === 47 || c === 40 || c === 41;
}

/**
 * RFC 3164 header after the timestamp: ` HOST TAG[PID]: ` or ` HOST TAG: `. Both are set only when the whole
 * shape is there (Mac tags with spaces, for instance, set neither). Returns where the message starts, or -1.
 */
function syslogHeader(s: string, i: number, fields: Record<string, FieldValue>): number {
  if (s.charCodeAt(i) !== 32) return -1;
  let j = i + 1;
  while (isHostChar(s.charCodeAt(j))) j++;
  if (j === i + 1 || j - i > 256 || s.charCodeAt(j) !== 32) return -1;
  const hostEnd = j;
  j++;
  const tagStart = j;
  while (isTagChar(s.charCodeAt(j))) j++;
  if (j === tagStart || j - tagStart > 64) return -1;
  const tagEnd = j;
  if (s.charCodeAt(j) === 91) {
    j++;
    const pidStart = j;
    while (isDigitCode(s.charCodeAt(j))) j++;
    if (j === pidStart || s.charCodeAt(j) !== 93) return -1;
    j++;
  }
  if (s.charCodeAt(j) !== 58) return -1;
  const after = s.charCodeAt(j + 1);
  if (!Number.isNaN(after) && after !== 32) return -1; // `:` ends the line or is followed by a space
  setIfAbsent(fields, 'host', s.slice(i + 1, hostEnd));
  setIfAbsent(fields, 'appname', s.slice(tagStart, tagEnd));
  return j + 1;
}

/** logcat threadtime after the timestamp: `  PID  TID L `. */
function logcatLevel(s: string, i: number): Level | undefined {
  let j = i;
  for (let part = 0; part < 2; part++) {
    const sp = j;
    while (s.charCodeAt(j) === 32) j++;
    if (j === sp) return undefined;
    const ds = j;
    while (isDigitCode(s.charCodeAt(j))) j++;
    if (j === ds) return undefined;
  }
  if (s.charCodeAt(j) !== 32) return undefined;
  while (s.charCodeAt(j) === 32) j++;
  const next = s.charCodeAt(j + 1);
  return next === 32 || Number.isNaN(next) ? levelFromLogcatLetter(s.charCodeAt(j)) : undefined;
}
