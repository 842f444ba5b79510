// `parse syslog(f)`: RFC 5424 and RFC 3164 (BSD) syslog lines.
//
// 5424: <PRI>1 TIMESTAMP HOST APP-NAME PROCID MSGID [SD-ID name="value" ...]... MSG
// 3164: <PRI>Mmm dd hh:mm:ss HOST TAG[PID]: MSG   (the <PRI> may be missing, as in files written by
//       syslogd; an RFC 3339 timestamp is accepted in place of Mmm dd hh:mm:ss, as rsyslog writes)
// Fields: priority, facility (priority / 8), severity (priority % 8), timestamp (the text as written),
// host, appname (the TAG), procid, msgid, message, and for 5424 structured data as sd.<id>.<name>.
// `-` (5424's nil value) means absent. Values follow the numeric-capture rule except timestamp and
// message, which stay text. A 5424 message loses its UTF-8 BOM. A 3164 line without `TAG:` has no
// appname: everything after the host is the message. A line with neither a <PRI> nor a timestamp, or
// a PRI over 191, is not syslog and gives no fields. Malformed structured data ends the structured
// data: the rest of the line is the message.

import type { Value } from '../value';
import { captureValue, setField } from './common';
import type { Extractor } from './types';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** `Mmm dd hh:mm:ss` (day space- or zero-padded, or one digit) at i: its length, or 0. */
function bsdTimestamp(s: string, i: number): number {
  if (!MONTHS.includes(s.slice(i, i + 3)) || s.charCodeAt(i + 3) !== 32) return 0;
  let j = i + 4;
  if (s.charCodeAt(j) === 32) j++;
  if (!isDigit(s.charCodeAt(j))) return 0;
  j += isDigit(s.charCodeAt(j + 1)) ? 2 : 1;
  if (s.charCodeAt(j) !== 32 || !/^\d\d:\d\d:\d\d/.test(s.slice(j + 1, j + 9))) return 0;
  j += 9;
  // Some writers add a fraction or a year: "Dec 10 06:55:46.123".
  if (s.charCodeAt(j) === 46) for (j++; isDigit(s.charCodeAt(j)); j++);
  return j - i;
}

/** An RFC 3339 timestamp word at i (`2024-05-06T07:08:09...`): its length, or 0. */
function isoTimestamp(s: string, i: number): number {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(s.slice(i, i + 16))) return 0;
  let j = i;
  while (j < s.length && s.charCodeAt(j) !== 32) j++;
  return j - i;
}

function put(out: Record<string, Value>, key: string, text: string): void {
  if (text !== '-' && text !== '') setField(out, key, captureValue(text));
}

function nextWord(s: string, i: number): number {
  while (i < s.length && s.charCodeAt(i) !== 32) i++;
  return i;
}

/** Structured data at i into out: the offset after it, or -1 when malformed. */
function structuredData(s: string, i: number, out: Record<string, Value>): number {
  while (s.charCodeAt(i) === 91) {
    let j = i + 1;
    while (j < s.length && s.charCodeAt(j) !== 32 && s.charCodeAt(j) !== 93) j++;
    const id = s.slice(i + 1, j);
    if (id === '') return -1;
    for (;;) {
      if (s.charCodeAt(j) === 93) {
        j++;
        break;
      }
      if (s.charCodeAt(j) !== 32) return -1;
      const eq = s.indexOf('=', j);
      if (eq < 0 || s.charCodeAt(eq + 1) !== 34) return -1;
      const name = s.slice(j + 1, eq);
      if (name === '' || name.includes(' ')) return -1;
      let value = '';
      let k = eq + 2;
      let from = k;
      for (; k < s.length && s.charCodeAt(k) !== 34; k++) {
        if (s.charCodeAt(k) === 92 && k + 1 < s.length) {
          value += s.slice(from, k);
          from = ++k;
        }
      }
      if (k >= s.length) return -1;
      value += s.slice(from, k);
      setField(out, `sd.${id}.${name}`, captureValue(value));
      j = k + 1;
    }
    i = j;
  }
  return i;
}

function parseSyslog(s: string): Record<string, Value> {
  const out: Record<string, Value> = {};
  let i = 0;
  let hasPri = false;
  if (s.charCodeAt(0) === 60) {
    const close = s.indexOf('>');
    const pri = close > 1 && close <= 4 ? s.slice(1, close) : '';
    if (!/^\d+$/.test(pri) || Number(pri) > 191) return {};
    const p = Number(pri);
    out.priority = p;
    out.facility = p >> 3;
    out.severity = p & 7;
    hasPri = true;
    i = close + 1;
  }
  if (hasPri && s.charCodeAt(i) === 49 && s.charCodeAt(i + 1) === 32) return rfc5424(s, i + 2, out);
  let ts = bsdTimestamp(s, i);
  if (ts === 0) ts = isoTimestamp(s, i);
  if (ts === 0) {
    if (!hasPri) return {};
    out.message = s.slice(i);
    return out;
  }
  out.timestamp = s.slice(i, i + ts);
  i += ts;
  while (s.charCodeAt(i) === 32) i++;
  const hostEnd = nextWord(s, i);
  put(out, 'host', s.slice(i, hostEnd));
  i = hostEnd;
  while (s.charCodeAt(i) === 32) i++;
  // TAG[PID]: or TAG:
  let j = i;
  while (j < s.length && s.charCodeAt(j) !== 32 && s.charCodeAt(j) !== 58 && s.charCodeAt(j) !== 91) j++;
  let tagEnd = -1;
  let pid = '';
  if (j > i && s.charCodeAt(j) === 91) {
    const close = s.indexOf(']', j);
    if (close > j && s.charCodeAt(close + 1) === 58) {
      pid = s.slice(j + 1, close);
      tagEnd = close + 2;
    }
  } else if (j > i && s.charCodeAt(j) === 58) {
    tagEnd = j + 1;
  }
  if (tagEnd > 0) {
    put(out, 'appname', s.slice(i, j));
    put(out, 'procid', pid);
    i = tagEnd;
    if (s.charCodeAt(i) === 32) i++;
  }
  out.message = s.slice(i);
  return out;
}

function rfc5424(s: string, i: number, out: Record<string, Value>): Record<string, Value> {
  const keys = ['timestamp', 'host', 'appname', 'procid', 'msgid'];
  for (const key of keys) {
    const end = nextWord(s, i);
    const text = s.slice(i, end);
    if (key === 'timestamp') {
      if (text !== '-' && text !== '') out.timestamp = text;
    } else {
      put(out, key, text);
    }
    i = end + 1;
    if (end >= s.length) return out;
  }
  if (s.charCodeAt(i) === 45 && (i + 1 >= s.length || s.charCodeAt(i + 1) === 32)) {
    i += 2;
  } else {
    const end = structuredData(s, i, out);
    if (end >= 0) i = s.charCodeAt(end) === 32 ? end + 1 : end;
  }
  if (i < s.length) {
    const message = s.charCodeAt(i) === 0xfeff ? s.slice(i + 1) : s.slice(i);
    if (message !== '') out.message = message;
  }
  return out;
}

export const SYSLOG_FIELDS = ['priority', 'facility', 'severity', 'timestamp', 'host', 'appname', 'procid', 'msgid', 'message'] as const;

export function syslogExtractor(): Extractor {
  // sd.* names depend on the text, so the field list is not fixed.
  return { fields: null, extract: parseSyslog };
}
