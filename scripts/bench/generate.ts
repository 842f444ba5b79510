/**
 * A deterministic generator of realistic log events: nginx-style access lines and JSON
 * application logs (~250 bytes each) with hosts, levels, latencies, user ids and paths.
 */

/** mulberry32: a small seeded PRNG so every run generates the same data. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTS = Array.from({ length: 20 }, (_, i) => `web-${i + 1}`);
const SERVICES = ['checkout', 'search', 'auth', 'catalog', 'payments', 'inventory'];
const PATHS = [
  '/api/v1/orders',
  '/api/v1/orders/{id}',
  '/api/v1/cart',
  '/api/v1/search?q=shoes',
  '/api/v1/users/{id}/profile',
  '/static/app.js',
  '/static/styles.css',
  '/login',
  '/logout',
  '/healthz',
  '/api/v1/payments/authorize',
  '/api/v1/inventory/{id}',
];
const METHODS = ['GET', 'GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE'];
const REFERRERS = [
  '-',
  'https://shop.example.com/',
  'https://shop.example.com/cart',
  'https://www.google.com/',
  'https://shop.example.com/search?q=running+shoes',
];
const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  'curl/8.5.0',
  'Go-http-client/1.1',
  'okhttp/4.12.0',
];
const MESSAGES = [
  'request completed',
  'cache miss for key',
  'retrying upstream call',
  'connection reset by peer',
  'slow query detected',
  'user session refreshed',
  'payment authorized',
  'inventory reserved',
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface GeneratedEvent {
  event: string;
  time: number;
  host: string;
  source: string;
  sourcetype: string;
  fields: Record<string, string | number>;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/**
 * A Zipf-like draw in [0, n): real traffic is skewed (a few clients, users and paths make most
 * requests), which is what log compression meets in practice; uniform draws would be the worst case.
 */
function skewed(random: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(n * Math.pow(random(), 3)));
}

function statusOf(random: () => number): number {
  const r = random();
  if (r < 0.8) return 200;
  if (r < 0.86) return 201;
  if (r < 0.9) return 304;
  if (r < 0.95) return 404;
  if (r < 0.98) return 500;
  return 503;
}

function clfTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

export class EventGenerator {
  private readonly random: () => number;
  private timeMs: number;

  /** Events start at `startMs` and advance by `stepMs` on average. */
  constructor(
    seed: number,
    startMs: number,
    private readonly stepMs: number,
  ) {
    this.random = prng(seed);
    this.timeMs = startMs;
  }

  /** A needle token present in exactly the events whose index `i % every === 0` (for rare-needle search). */
  next(needle?: string): GeneratedEvent {
    const random = this.random;
    this.timeMs += this.stepMs * 2 * random();
    const time = Math.round(this.timeMs) / 1000;
    const host = pick(random, HOSTS);
    const status = statusOf(random);
    const duration = Math.round((status >= 500 ? 400 : 20) + random() * random() * 900);
    const user = `u${skewed(random, 50_000)}`;
    const path = PATHS[skewed(random, PATHS.length)].replace('{id}', String(skewed(random, 100_000)));
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : random() < 0.05 ? 'debug' : 'info';
    if (random() < 0.6) {
      const method = pick(random, METHODS);
      const bytes = Math.floor(random() * 20_000);
      const client = skewed(random, 200_000);
      const ip = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
      let line =
        `${ip} - ${user} [${clfTime(this.timeMs)}] "${method} ${path} HTTP/1.1" ${status} ${bytes} ` +
        `"${pick(random, REFERRERS)}" "${pick(random, AGENTS)}" rt=${(duration / 1000).toFixed(3)} upstream=${host}:8080`;
      if (needle !== undefined) line += ` trace=${needle}`;
      return {
        event: line,
        time,
        host,
        source: 'nginx',
        sourcetype: 'access_combined',
        fields: { status, duration_ms: duration, method, path, bytes, user_id: user, level, client_ip: ip },
      };
    }
    const service = pick(random, SERVICES);
    const message = pick(random, MESSAGES);
    const requestId = `${Math.floor(random() * 2 ** 24)
      .toString(16)
      .padStart(6, '0')}${Math.floor(random() * 2 ** 24)
      .toString(16)
      .padStart(6, '0')}`;
    const body: Record<string, string | number> = {
      ts: new Date(this.timeMs).toISOString(),
      level,
      host,
      service,
      env: 'production',
      region: host < 'web-5' ? 'eu-west-1' : 'us-east-1',
      msg: message,
      user_id: user,
      request_id: requestId,
      duration_ms: duration,
      status,
      path,
      version: '2.14.3',
    };
    if (needle !== undefined) body.trace = needle;
    return {
      event: JSON.stringify(body),
      time,
      host,
      source: service,
      sourcetype: 'json',
      fields: { status, duration_ms: duration, level, service, user_id: user, path, request_id: requestId },
    };
  }
}
