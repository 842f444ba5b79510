/** Reads Server-Sent Events with a real EventSource client, as a browser or a dashboard would. */
import { EventSource } from 'eventsource';

export interface SseEvent {
  event: string;
  data: any;
}

/**
 * The events of the stream at `url` (of the named kinds), in order, up to and including the
 * first for which `isLast` is true. Fails if the connection breaks first (EventSource would
 * reconnect: a stream the server ends early is a failure here) or after `timeoutMs`.
 */
export function readSse(
  url: string,
  kinds: readonly string[],
  isLast: (event: SseEvent) => boolean,
  timeoutMs = 60_000,
): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    const source = new EventSource(url);
    const events: SseEvent[] = [];
    const timer = setTimeout(
      () => finish(new Error(`no final event from ${url} within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.event))}`)),
      timeoutMs,
    );
    const finish = (error: Error | null): void => {
      clearTimeout(timer);
      source.close();
      if (error === null) resolve(events);
      else reject(error);
    };
    for (const kind of kinds) {
      source.addEventListener(kind, (message) => {
        const event = { event: kind, data: JSON.parse(message.data) };
        events.push(event);
        if (isLast(event)) finish(null);
      });
    }
    source.addEventListener('error', (error) => {
      finish(
        new Error(
          `the stream ${url} failed before its final event (${error.message ?? 'connection closed'}); got ${JSON.stringify(events.map((e) => e.event))}`,
        ),
      );
    });
  });
}

/** A query job's SSE stream (GET /query/jobs/{id}/stream): progress events, then one final event. */
export function readJobStream(url: string): Promise<SseEvent[]> {
  return readSse(url, ['progress', 'complete', 'failed', 'canceled'], (event) => event.event !== 'progress');
}

/**
 * An open SSE stream whose events are kept as they come, for tests that act while it runs (a
 * live tail). A server event named `error` is kept like the others; a connection failure is kept
 * in `failure` (EventSource would reconnect: it is closed instead).
 */
export class SseRecorder {
  readonly events: SseEvent[] = [];
  failure: string | null = null;
  private readonly source: EventSource;

  constructor(url: string, kinds: readonly string[]) {
    this.source = new EventSource(url);
    for (const kind of kinds) {
      if (kind === 'error') continue;
      this.source.addEventListener(kind, (message) => this.events.push({ event: kind, data: JSON.parse(message.data) }));
    }
    this.source.addEventListener('error', (event) => {
      const data = (event as unknown as { data?: string }).data;
      if (typeof data === 'string') this.events.push({ event: 'error', data: JSON.parse(data) });
      else {
        this.failure = (event as { message?: string }).message ?? 'connection closed';
        this.source.close();
      }
    });
  }

  of(kind: string): SseEvent[] {
    return this.events.filter((event) => event.event === kind);
  }

  /** Waits until `check` holds over the events so far; fails on a connection failure or after `timeoutMs`. */
  async until(check: (events: SseEvent[]) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const started = Date.now();
    while (!check(this.events)) {
      if (this.failure !== null) throw new Error(`the stream failed while waiting for ${what}: ${this.failure}`);
      if (Date.now() - started > timeoutMs) {
        throw new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.events.map((e) => e.event))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): void {
    this.source.close();
  }
}
