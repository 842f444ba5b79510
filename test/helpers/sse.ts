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
