/**
 * Events for cluster tests. A node that joins starts a ring epoch a few heartbeats ahead of now,
 * so events timed a few hours ahead fall past every epoch a test cluster decides at its start,
 * while staying within ingest.max_future (1 day): the ring of all its nodes places them.
 */

export interface TestEvent {
  event: string;
  /** Unix seconds. */
  time: number;
  host: string;
  source: string;
}

/** An event as a web server logs a request: its status and how long it took. */
export interface WebRequestEvent extends TestEvent {
  fields: { status: number; ms: number };
}

const HOUR_MS = 3_600_000;

/** The start (ms) of an hour at least three hours ahead: query tests ask whole buckets from it. */
export function futureHour(nowMs = Date.now()): number {
  return Math.ceil((nowMs + 3 * HOUR_MS) / HOUR_MS) * HOUR_MS;
}

/**
 * `count` events naming `tag`, from `hosts` hosts round robin, all of `source`, spread over ten
 * minutes from 20 hours ahead. Write tests vary the hosts to make pairs hot (one host) or spread.
 */
export function taggedEvents(tag: string, count: number, hosts: number, source = 'app'): TestEvent[] {
  const time = Math.floor(Date.now() / 1000) + 20 * 3600;
  return Array.from({ length: count }, (_, i) => ({
    event: `${tag} event ${i}`,
    time: time + (i % 600),
    host: `${tag}-host-${i % hosts}`,
    source,
  }));
}

const WEB_HOSTS = ['web-1', 'web-2', 'web-3', 'web-4', 'web-5'];

/**
 * `count` web requests `spacingMs` apart from `startMs`, over five hosts and two sources: every
 * tenth event is a timeout, every fifth a 500. Each (host, source) pair takes every tenth event,
 * so a request of fewer than 2,560 keeps every pair under SPILL_EVENTS (256) and none spills.
 */
export function webRequestEvents(startMs: number, count: number, spacingMs: number): WebRequestEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    event: `request ${i} ${i % 10 === 0 ? 'timeout' : 'ok'}`,
    time: (startMs + i * spacingMs) / 1000,
    host: WEB_HOSTS[i % WEB_HOSTS.length]!,
    source: i % 2 === 0 ? 'nginx' : 'app',
    fields: { status: i % 5 === 0 ? 500 : 200, ms: (i * 37) % 1000 },
  }));
}
