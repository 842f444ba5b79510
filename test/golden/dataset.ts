/**
 * The golden dataset: a fixed, deterministic set of ~2,000 events over 3.5 hours in three indexes
 * (seeded PRNG, no clock, no engine code), plus plain-JS helpers that compute what the query
 * language's documented semantics say a query must answer.
 *
 * Every `_raw` text is generated from known parts, and the parts are kept (`parsed`): the expected
 * result of `parse combined/clf/json/logfmt/kv/syslog` is the generator's truth, not a re-parse.
 *
 * Indexes and sources:
 * - `web`:  `nginx`   nginx combined access log lines (status, url, user, bytes, ...)
 * - `app`:  `api`     JSON lines;  `worker` logfmt lines;  `misc` free text (search words, the needle)
 * - `main`: `billing` kv lines;    `syslog` RFC 3164 / RFC 5424 lines
 *
 * Fields (sent in `fields`; absent = null): level, ms (float), bytes (int), code (number, numeric
 * string or other string: the mixed-type field), user (unicode), delta (negative/positive/zero),
 * ratio, cached (boolean), region, tags ("a,b"), when (datetime text), pad (whitespace), payload
 * (JSON text), url (percent-encoded), status (web and api), rid (unique id).
 * `_time` values are all distinct (millisecond precision) so that every order is deterministic.
 */
import { createHash } from 'crypto';
import { prng } from '../../scripts/bench/generate';

export type V = string | number | boolean | null;
export type Row = Record<string, V>;

export const BASE_MS = Date.UTC(2026, 2, 2, 8, 0, 0); // 2026-03-02T08:00:00.000Z, a Monday
export const COUNT = 2000;
export const STEP_MS = 6300;
/** The request range used by every golden query: a minute before the first event, 4 h after BASE. */
export const FROM_MS = BASE_MS - 60_000;
export const TO_MS = BASE_MS + 4 * 3600_000;
export const RANGE = { from: new Date(FROM_MS).toISOString(), to: new Date(TO_MS).toISOString() };
/** The events with the needle word (in several spellings) in `_raw`. */
export const NEEDLE_AT = [97, 517, 901, 1333, 1904];
export const USERS = ['alice', 'Bob', 'Zoë', 'José', '李雷', 'ÉMILE', '😀smile', 'anne marie', 'Ærø'];
export const LEVELS = ['debug', 'info', 'info', 'info', 'info', 'warn', 'warn', 'error'];
export const REGIONS = ['us-east', 'eu-west', 'ap-south'];

export interface GoldenEvent {
  /** Position in time order (0 = oldest). */
  i: number;
  timeMs: number;
  iso: string;
  index: 'web' | 'app' | 'main';
  source: 'nginx' | 'api' | 'worker' | 'misc' | 'billing' | 'syslog';
  host: string;
  raw: string;
  /** Exactly what is sent in `fields` (host and source go top-level). */
  fields: Record<string, string | number | boolean>;
  /** What each parse format must extract from `_raw` (only for the formats the line is written in). */
  parsed: Partial<Record<'combined' | 'clf' | 'json' | 'logfmt' | 'kv' | 'syslog' | 'pattern', Row>>;
}

// ---------------------------------------------------------------------------------------------------
const round = (x: number, d: number): number => Number(x.toFixed(d));
const pad2 = (n: number): string => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The numeric-capture rule of parse formats, written from its documentation: a plain decimal
 * (optional leading `-`, digits, optional `.digits`) becomes a number, except a leading zero before
 * another digit (`007`), more than 15 significant digits or an unsafe integer; anything else stays text.
 */
export function capture(text: string): V {
  const m = /^-?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return text;
  if (m[1]!.length > 1 && m[1]![0] === '0') return text;
  const x = Number(text);
  if (m[2] === undefined) return Number.isSafeInteger(x) ? (x === 0 ? 0 : x) : text;
  if (m[1]!.length + m[2].length > 15) return text;
  return x === 0 ? 0 : x;
}

/** Drops nulls and `-` placeholders, applying the capture rule (access logs and syslog). */
function put(out: Row, key: string, text: string | null, raw = false): void {
  if (text === null || text === '' || text === '-') return;
  out[key] = raw ? text : capture(text);
}

/** Flattens a JSON object as `parse json` documents: dotted names, arrays as JSON text, null absent. */
export function flattenJson(obj: Record<string, unknown>, prefix = '', out: Row = {}): Row {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix + k;
    if (v === null || k === '') continue;
    if (typeof v === 'object' && !Array.isArray(v)) flattenJson(v as Record<string, unknown>, `${name}.`, out);
    else if (Array.isArray(v)) out[name] = JSON.stringify(v);
    else out[name] = v as V;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Generation

function generate(): GoldenEvent[] {
  const r = prng(20260302);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const events: GoldenEvent[] = [];
  for (let i = 0; i < COUNT; i++) {
    const timeMs = BASE_MS + i * STEP_MS + Math.floor(r() * 3000);
    const iso = new Date(timeMs).toISOString();
    const roll = r();
    let source: GoldenEvent['source'] =
      roll < 0.35 ? 'nginx' : roll < 0.55 ? 'api' : roll < 0.7 ? 'worker' : roll < 0.8 ? 'billing' : roll < 0.92 ? 'syslog' : 'misc';
    if (NEEDLE_AT.includes(i)) source = 'misc';
    const index = source === 'nginx' ? 'web' : source === 'billing' || source === 'syslog' ? 'main' : 'app';
    const host =
      source === 'nginx'
        ? pick(['web-1', 'web-2', 'web-3'])
        : source === 'api'
          ? pick(['api-1', 'api-2'])
          : source === 'worker'
            ? 'wrk-1'
            : source === 'billing'
              ? 'pay-1'
              : source === 'syslog'
                ? pick(['db-1', 'db-2'])
                : pick(['web-1', 'api-1', 'db-1', 'wrk-1']);

    // Common fields; each may be absent.
    const f: Record<string, string | number | boolean> = { rid: `r${i}` };
    if (r() >= 0.05) f.level = pick(LEVELS);
    if (r() >= 0.1) f.ms = round(2 + r() * r() * 1500, 3);
    if (r() >= 0.08) f.bytes = int(0, 50000);
    const c = r();
    if (c < 0.55) f.code = int(0, 99);
    else if (c < 0.8) f.code = String(int(0, 99));
    else if (c < 0.9) f.code = `E${int(0, 99)}`;
    if (r() >= 0.15) f.user = pick(USERS);
    const d = r();
    if (d < 0.03) f.delta = 0;
    else if (d < 0.9) f.delta = round(-50 + r() * 100, 2);
    if (r() >= 0.2) f.ratio = round(r(), 4);
    if (r() >= 0.35) f.cached = r() < 0.5;
    f.region = pick(REGIONS);
    if (r() < 0.5) {
      const n = int(1, 4);
      f.tags = Array.from({ length: n }, () => pick(['red', 'green', 'blue', 'x', 'y'])).join(',');
    }
    const w = r();
    if (w < 0.4) {
      const t = new Date(timeMs - int(0, 7200) * 1000);
      f.when = `${t.getUTCFullYear()}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())} ${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}`;
    } else if (w < 0.45) f.when = 'n/a';
    if (r() < 0.3) f.pad = pick(['  Hello World  ', '\tTabbed\t', 'none', '  lead', 'trail  ']);
    const p = r();
    if (p < 0.3) {
      f.payload = JSON.stringify({
        a: { b: int(0, 9) },
        arr: Array.from({ length: int(1, 4) }, () => int(0, 99)),
        s: pick(['x', 'y z', 'Zoë']),
        deep: { x: { y: pick(['p', 'q']) } },
      });
    } else if (p < 0.33) f.payload = '{broken';

    const parsed: GoldenEvent['parsed'] = {};
    let raw: string;
    if (source === 'nginx' || source === 'api') {
      const term = pick(['caf%C3%A9%20au%20lait', 'a%2Bb', '100%25', '%E6%97%A5%E6%9C%AC', 'plain', 'x+y', 'bad%zz']);
      f.url = `/search?q=${term}&page=${int(1, 9)}`;
      f.status = pick([200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 404, 429, 500, 502, 503]);
    }
    if (source === 'nginx') {
      const ip = r() < 0.5 ? `10.${int(0, 9)}.${int(0, 255)}.${int(1, 254)}` : `203.0.113.${int(1, 254)}`;
      const auth = r() < 0.6 ? '-' : pick(['alice', 'bob', 'carol']);
      const t = new Date(timeMs);
      const clfTime = `${pad2(t.getUTCDate())}/${MONTHS[t.getUTCMonth()]}/${t.getUTCFullYear()}:${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())} +0000`;
      const method = pick(['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'HEAD']);
      const path = pick([`/api/items/${int(1, 500)}`, '/static/app.js', `/api/orders?id=${int(1, 99)}&sort=desc`, '/']);
      const protocol = pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/2.0', 'HTTP/1.0']);
      const status = f.status as number;
      const size = status === 204 || status === 304 ? '-' : String(int(0, 90000));
      const referrer = r() < 0.5 ? '-' : pick(['https://example.com/page?x=1', 'https://search.example/q?s=trawl']);
      const ua = pick([
        'Mozilla/5.0 (X11; Linux x86_64)',
        'curl/8.4.0',
        'Go-http-client/1.1',
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
      ]);
      raw = `${ip} - ${auth} [${clfTime}] "${method} ${path} ${protocol}" ${status} ${size} "${referrer}" "${ua}"`;
      const clf: Row = {};
      put(clf, 'client_ip', ip);
      put(clf, 'user', auth);
      put(clf, 'timestamp', clfTime);
      clf.method = method;
      put(clf, 'path', path);
      clf.protocol = protocol;
      clf.status = status;
      put(clf, 'bytes', size);
      parsed.clf = clf;
      const combined: Row = { ...clf };
      put(combined, 'referrer', referrer);
      put(combined, 'user_agent', ua);
      parsed.combined = combined;
      // parse pattern(_raw, "<ip> - <auth> [<ts>] \"<method> <uri> <proto>\" <st> <size> <_>")
      parsed.pattern = {
        ip: capture(ip),
        auth: capture(auth),
        ts: capture(clfTime),
        method,
        uri: capture(path),
        proto: protocol,
        st: status,
        size: capture(size),
      };
    } else if (source === 'api') {
      const obj: Record<string, unknown> = {
        ts: iso,
        level: r() < 0.8 ? pick(['INFO', 'WARN', 'ERROR']) : null,
        msg: pick(['request done', 'request failed: timeout', 'Request throttled', 'cache miss', 'connection reset by upstream']),
        req: { id: `q-${i}`, route: pick(['/v1/users', '/v1/orders', '/v1/items/{id}']), ms: round(r() * 900, 1), ok: r() < 0.8 },
        tags: Array.from({ length: int(0, 3) }, () => pick(['a', 'b', 'c'])),
        attempt: r() < 0.3 ? null : int(1, 5),
        zip: '02139',
        empty: {},
        count: int(0, 1000),
      };
      if (r() < 0.5) obj.user = pick(USERS);
      if (r() < 0.5) obj.code = `J${int(0, 9)}`;
      raw = JSON.stringify(obj);
      parsed.json = flattenJson(obj);
    } else if (source === 'worker') {
      const job = `${pick(['resize', 'encode', 'index'])}-${int(1, 99)}`;
      const msg = pick(['job finished', 'job failed: timeout', 'said "hi"', 'Retrying after TimeOut']);
      const level = pick(['info', 'warn', 'error']);
      const duration = int(1, 5000);
      const attempt = int(1, 4);
      const ratio = pick(['0.50', '1.25', '-3', '1.2.3', '007', '3e5']);
      const bare = r() < 0.4;
      raw = `ts=${iso} level=${level} msg="${msg.replace(/"/g, '\\"')}" job=${job} duration_ms=${duration} attempt=${attempt} val=${ratio}${bare ? ' retry' : ''} queue= wid=${pad2(int(0, 20))}`;
      const lf: Row = { ts: iso, level, msg, job, duration_ms: duration, attempt, val: capture(ratio) };
      if (bare) lf.retry = true;
      lf.queue = '';
      lf.wid = capture(raw.slice(raw.lastIndexOf('=') + 1));
      parsed.logfmt = lf;
    } else if (source === 'billing') {
      const invoice = `INV-${String(int(1, 9999)).padStart(4, '0')}`;
      const amount = pick([`${int(1, 999)}.${pad2(int(0, 99))}`, String(int(1, 5000)), '0.5']);
      const customer = pick(['Zoë Martin', 'José Álvarez', 'ACME Corp', 'li lei']);
      const status = pick(['paid', 'due', 'void']);
      const items = int(1, 12);
      raw = `BILLING invoice=${invoice} amount=${amount} currency=EUR customer="${customer}"; status=${status}, items=${items} note='late fee' zip=02139`;
      parsed.kv = {
        invoice,
        amount: capture(amount),
        currency: 'EUR',
        customer,
        status,
        items,
        note: 'late fee',
        zip: '02139',
      };
    } else if (source === 'syslog') {
      const pri = pick([13, 34, 38, 86, 131, 165, 190]);
      const sys: Row = { priority: pri, facility: pri >> 3, severity: pri & 7 };
      if (r() < 0.6) {
        const t = new Date(timeMs);
        const stamp = `${MONTHS[t.getUTCMonth()]} ${String(t.getUTCDate()).padStart(2, ' ')} ${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}`;
        const withPid = r() < 0.7;
        const app = withPid ? pick(['sshd', 'nginx', 'postgres']) : 'CRON';
        const pid = int(100, 30000);
        const msg = withPid
          ? pick([
              `Failed password for root from 10.0.0.${int(1, 254)} port 22 ssh2`,
              'Accepted publickey for deploy',
              'connection reset by peer',
            ])
          : '(root) CMD (run-parts /etc/cron.hourly)';
        raw = `<${pri}>${stamp} ${host} ${app}${withPid ? `[${pid}]` : ''}: ${msg}`;
        sys.timestamp = stamp;
        sys.host = host;
        sys.appname = app;
        if (withPid) sys.procid = pid;
        sys.message = msg;
      } else {
        const app = pick(['app', 'db', 'backup']);
        const pid = r() < 0.7 ? String(int(100, 30000)) : '-';
        const msgid = r() < 0.6 ? pick(['ID47', 'TX9', 'LOGIN']) : '-';
        const sd = r() < 0.5;
        const iut = int(1, 9);
        const msg = pick(['disk usage 91%', 'backup finished in 42s', 'ÉCHEC de la sauvegarde', 'slow query timeout']);
        raw = `<${pri}>1 ${iso} ${host} ${app} ${pid} ${msgid} ${sd ? `[exampleSDID@32473 iut="${iut}" eventSource="Application"]` : '-'} ${msg}`;
        sys.timestamp = iso;
        sys.host = host;
        sys.appname = app;
        put(sys, 'procid', pid);
        put(sys, 'msgid', msgid);
        if (sd) {
          sys['sd.exampleSDID@32473.iut'] = iut;
          sys['sd.exampleSDID@32473.eventSource'] = 'Application';
        }
        sys.message = msg;
      }
      parsed.syslog = sys;
    } else {
      const k = NEEDLE_AT.indexOf(i);
      if (k >= 0) {
        raw = [
          'found zanzibar in the cache',
          'Zanzibar: unexpected token',
          'ZANZIBAR escalation for user',
          'retrying zanzibar lookup after timeout',
          'zanzibar!',
        ][k]!;
      } else {
        raw = pick([
          'Connection reset by peer while reading response header from upstream',
          'upstream timed out (110: Connection timed out) while connecting',
          'TIMEOUT waiting for lock on table orders',
          'Timeout after 30s; retrying request',
          `User login OK for ${pick(USERS)}`,
          'user logout',
          'reset connection pool after error',
          'échec de connexion: délai dépassé',
          'cache hit ratio 0.93',
          'Error: connection refused (ECONNREFUSED)',
        ]);
      }
    }
    events.push({ i, timeMs, iso, index, source, host, raw, fields: f, parsed });
  }
  return events;
}

export const EVENTS: readonly GoldenEvent[] = generate();

/** The body of `POST /api/v1/ingest` for a slice of the events. */
export function ingestBody(events: readonly GoldenEvent[]): unknown[] {
  return events.map((e) => ({ event: e.raw, time: e.timeMs / 1000, host: e.host, source: e.source, index: e.index, fields: e.fields }));
}

/** An event as a query returns it: `_time` as ISO 8601, `index`, labels and fields. */
export function stored(e: GoldenEvent): Row {
  return { _time: e.iso, _raw: e.raw, index: e.index, source: e.source, host: e.host, ...e.fields };
}

/** A field of an event as the query language sees it (null when absent). */
export function get(e: GoldenEvent, name: string): V {
  if (name === '_time') return e.iso;
  const row = stored(e);
  return Object.prototype.hasOwnProperty.call(row, name) ? row[name]! : null;
}

/** Newest first: the default order of events results. */
export function newestFirst(events: readonly GoldenEvent[]): GoldenEvent[] {
  return [...events].sort((a, b) => b.timeMs - a.timeMs);
}

export function inIndexes(...indexes: string[]): GoldenEvent[] {
  return EVENTS.filter((e) => indexes.includes(e.index));
}

// ---------------------------------------------------------------------------------------------------
// Semantics helpers (docs/language.md), written independently of the engine

/** A string that reads as a number (trimmed, not empty, JS Number syntax), else NaN. */
export function numericString(s: string): number {
  return s.trim() === '' ? NaN : Number(s);
}

/**
 * Comparison: numbers compare numerically, also against a string that reads as a number; strings
 * compare case-sensitively (code units). NaN when either side is null (unknown, false in where).
 */
export function compare(a: V, b: V): number {
  if (a === null || b === null) return NaN;
  if (typeof a === 'number' && typeof b === 'string' && !Number.isNaN(numericString(b))) return Math.sign(a - numericString(b));
  if (typeof a === 'string' && typeof b === 'number' && !Number.isNaN(numericString(a))) return Math.sign(numericString(a) - b);
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return NaN;
}

export function equals(a: V, b: V): boolean | null {
  if (a === null || b === null) return null;
  return compare(a, b) === 0;
}

/** The number an aggregate or numeric function reads: numbers, numeric strings, booleans as 1/0. */
export function num(v: V): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const x = numericString(v);
    return Number.isNaN(x) ? null : x;
  }
  return null;
}

/** Lower-cased tokens of a text: runs of [A-Za-z0-9_] and characters >= U+0080. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const tokenChar = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
    if (tokenChar) cur += text[i];
    else if (cur !== '') {
      out.push(cur.toLowerCase());
      cur = '';
    }
  }
  if (cur !== '') out.push(cur.toLowerCase());
  return out;
}

function isTokenChar(ch: string | undefined): boolean {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
}

/** A search term or phrase: a case-insensitive occurrence with token boundaries at both ends. */
export function hasPhrase(text: string, phrase: string): boolean {
  const hay = text.toLowerCase();
  const needle = phrase.toLowerCase();
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = isTokenChar(needle[0]) && isTokenChar(hay[at - 1]);
    const after = isTokenChar(needle[needle.length - 1]) && isTokenChar(hay[at + needle.length]);
    if (!before && !after) return true;
  }
  return false;
}

/** A glob (`*` any run, `?` one character) as a whole-string, case-insensitive RegExp. */
export function globRegex(glob: string, anyChar = '.'): RegExp {
  const body = glob
    .split('')
    .map((ch) => (ch === '*' ? `${anyChar}*` : ch === '?' ? anyChar : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'is');
}

/** Order of stats keys and sort values: ascending, nulls last, numbers < strings < booleans. */
export function keyOrder(a: V, b: V): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const rank = (v: V): number => (typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rows grouped by a key function (insertion order of first appearance). */
export function groupBy<T>(items: readonly T[], key: (item: T) => V[]): Map<string, { key: V[]; items: T[] }> {
  const groups = new Map<string, { key: V[]; items: T[] }>();
  for (const item of items) {
    const k = key(item);
    const id = JSON.stringify(k);
    let g = groups.get(id);
    if (g === undefined) groups.set(id, (g = { key: k, items: [] }));
    g.items.push(item);
  }
  return groups;
}

/** Groups as stats returns them: ordered by keys ascending, nulls last. */
export function statsGroups<T>(items: readonly T[], key: (item: T) => V[]): { key: V[]; items: T[] }[] {
  return [...groupBy(items, key).values()].sort((x, y) => {
    for (let k = 0; k < x.key.length; k++) {
      const o = keyOrder(x.key[k]!, y.key[k]!);
      if (o !== 0) return o;
    }
    return 0;
  });
}

/** The value at 0-based rank floor(q * (n - 1)) of the sorted numbers (null when none). */
export function exactPercentile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))]!;
}

export function sampleVariance(values: number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  const mean = values.reduce((s, x) => s + x, 0) / n;
  return values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
}

/** Numbers of a field over events (numbers, numeric strings, booleans), nulls and text skipped. */
export function numbers(events: readonly GoldenEvent[], field: string): number[] {
  const out: number[] = [];
  for (const e of events) {
    const x = num(get(e, field));
    if (x !== null && Number.isFinite(x)) out.push(x);
  }
  return out;
}

export function sum(values: number[]): number {
  // Kahan-Babuska summation (so the reference is at least as exact as the engine).
  let s = 0;
  let c = 0;
  for (const x of values) {
    const t = s + x;
    c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
    s = t;
  }
  return s + c;
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

export function binMs(ms: number, size: number): number {
  return Math.floor(ms / size) * size;
}

export function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The text functions see: strings as they are, numbers in JS form, booleans as true/false. */
export function text(v: V): string | null {
  return v === null ? null : typeof v === 'string' ? v : String(v);
}
