// `parse clf(f)` and `parse combined(f)`: Apache / nginx access logs.
//
// clf:      %h %l %u [%t] "%r" %>s %b
// combined: clf + "%{Referer}i" "%{User-agent}i"
// Fields: client_ip, user (%u; the identd %l is dropped), timestamp (the text inside [], as written),
// method, path, protocol (from the request line "GET /a?b HTTP/1.1"), status, bytes, and for combined
// referrer, user_agent. `-` means absent. Values follow the numeric-capture rule (status and bytes are
// numbers). Quoted parts may contain \" and \\ (Apache's escapes; nginx's \x22 is kept as written).
// A request line that is not `METHOD target [protocol]` (e.g. TLS bytes sent to a plain port) gives
// no method/path/protocol. Tolerant: any run of spaces separates fields, combined accepts a clf line
// (without referrer/user_agent) and both ignore text after the last field (nginx adds more).
// A line without the clf part (client, ident, user, [time], "request", status) gives no fields.

import type { Value } from '../value';
import { captureValue, setField } from './common';
import type { Extractor } from './types';

export const CLF_FIELDS = ['client_ip', 'user', 'timestamp', 'method', 'path', 'protocol', 'status', 'bytes'] as const;
export const COMBINED_FIELDS = [...CLF_FIELDS, 'referrer', 'user_agent'] as const;

// The scanner's position and last token (module state: one parse at a time, synchronously).
let pos = 0;
let token = '';

function spaces(s: string): boolean {
  const start = pos;
  while (s.charCodeAt(pos) === 32 || s.charCodeAt(pos) === 9) pos++;
  return pos > start;
}

/** A run of non-space characters into token; false when empty. */
function word(s: string): boolean {
  const start = pos;
  for (;;) {
    const c = s.charCodeAt(pos);
    if (c !== c || c === 32 || c === 9) break; // NaN: end of text
    pos++;
  }
  token = s.slice(start, pos);
  return pos > start;
}

/** `open`...`close` into token (backslash escapes \" and \\ when quoted); false when not there. */
function delimited(s: string, open: number, close: number): boolean {
  if (s.charCodeAt(pos) !== open) return false;
  const start = ++pos;
  let escaped = false;
  for (; pos < s.length; pos++) {
    const c = s.charCodeAt(pos);
    if (c === 92 && open === 34) {
      escaped = true;
      pos++;
    } else if (c === close) {
      token = s.slice(start, pos);
      if (escaped) token = token.replace(/\\(["\\])/g, '$1');
      pos++;
      return true;
    }
  }
  return false;
}

function put(out: Record<string, Value>, key: string, text: string): void {
  if (text !== '-' && text !== '') setField(out, key, captureValue(text));
}

/** method, path, protocol of a request line. */
function request(out: Record<string, Value>, line: string): void {
  const sp = line.indexOf(' ');
  if (sp <= 0) return;
  for (let i = 0; i < sp; i++) {
    const c = line.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || c === 45 || c === 95)) return; // METHOD: upper-case letters, - _
  }
  const last = line.lastIndexOf(' ');
  const rest = line.slice(last + 1);
  out.method = line.slice(0, sp);
  if (last > sp && rest.startsWith('HTTP/')) {
    put(out, 'path', line.slice(sp + 1, last));
    out.protocol = rest;
  } else {
    put(out, 'path', line.slice(sp + 1));
  }
}

function parseAccess(s: string, combined: boolean): Record<string, Value> {
  pos = 0;
  const out: Record<string, Value> = {};
  if (!word(s)) return {};
  const client = token;
  if (!spaces(s) || !word(s) || !spaces(s) || !word(s)) return {};
  const user = token;
  if (!spaces(s) || !delimited(s, 91, 93)) return {};
  const timestamp = token;
  if (!spaces(s) || !delimited(s, 34, 34)) return {};
  const line = token;
  if (!spaces(s) || !word(s)) return {};
  const status = captureValue(token);
  if (typeof status !== 'number') return {};
  put(out, 'client_ip', client);
  put(out, 'user', user);
  put(out, 'timestamp', timestamp);
  request(out, line);
  out.status = status;
  if (spaces(s) && word(s)) put(out, 'bytes', token);
  if (combined && spaces(s) && delimited(s, 34, 34)) {
    put(out, 'referrer', token);
    if (spaces(s) && delimited(s, 34, 34)) put(out, 'user_agent', token);
  }
  return out;
}

export function clfExtractor(): Extractor {
  return { fields: CLF_FIELDS, extract: (text) => parseAccess(text, false) };
}

export function combinedExtractor(): Extractor {
  return { fields: COMBINED_FIELDS, extract: (text) => parseAccess(text, true) };
}
