/**
 * Answers that last: a dataset and queries that cost CPU per row (seconds over the dataset), and
 * readers for the streamed answers (SSE job streams, NDJSON exports) that say when they began,
 * what they carried and how long they lasted.
 */
import { strict as assert } from 'assert';
import http from 'http';
import { postJson, type TestServer } from './server';

/** Ingests `count` events of ~100 bytes, one per millisecond up to a minute ago (well inside the retention), in batches. */
export async function ingestLines(server: TestServer, count: number): Promise<void> {
  const base = Date.now() / 1000 - 60 - count / 1000;
  for (let start = 0; start < count; start += 50_000) {
    const events = Array.from({ length: Math.min(50_000, count - start) }, (_, i) => ({
      event: `line ${start + i} user=u${(start + i) % 977} some padding text to make the row longer ${(start + i) * 7919}`,
      time: base + (start + i) / 1000,
    }));
    const answer = await postJson(`${server.api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
  }
}

/**
 * A query hashing every event `rounds` times: about 0.075 s a round over 100,000 events on the test machine.
 * `tag` makes its text unique, so the result cache never answers it.
 */
export function hashingQuery(rounds: number, tag: string, answer: 'count' | 'rows' = 'count'): string {
  const chain = Array.from({ length: rounds }, (_, i) => `h${i + 1} = sha256(${i === 0 ? '_raw' : `concat(h${i}, "${tag}")`})`);
  const last = `h${rounds}`;
  // A hash never equals the tag: the count is every event, and the filter needs the whole chain.
  return `from main | extend ${chain.join(', ')} | ${answer === 'count' ? `where ${last} != "${tag}" | stats count()` : `keep _time, ${last}`}`;
}

export interface StreamRead<T> {
  /** Resolves when the answer's head arrives. */
  started: Promise<void>;
  /** Resolves when the answer ends (or its connection closes). */
  done: Promise<{ status: number; items: T[]; elapsedMs: number; complete: boolean }>;
}

interface ReadOptions {
  /** Stop reading after the first chunk for this long: a slow client. */
  pauseAfterFirstChunkMs?: number;
}

function read<T>(
  options: http.RequestOptions & { url: string; body?: string },
  split: (buffer: string) => { items: T[]; rest: string },
  readOptions: ReadOptions = {},
): StreamRead<T> {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const done = new Promise<{ status: number; items: T[]; elapsedMs: number; complete: boolean }>((resolve, reject) => {
    const begun = Date.now();
    const request = http.request(options.url, options, (response) => {
      markStarted();
      let buffer = '';
      const items: T[] = [];
      let first = true;
      response.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        const { items: found, rest } = split(buffer);
        items.push(...found);
        buffer = rest;
        if (first) {
          first = false;
          const pause = readOptions.pauseAfterFirstChunkMs ?? 0;
          if (pause > 0) {
            response.pause();
            setTimeout(() => response.resume(), pause);
          }
        }
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, items, elapsedMs: Date.now() - begun, complete: true }));
      response.on('error', () => resolve({ status: response.statusCode ?? 0, items, elapsedMs: Date.now() - begun, complete: false }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
  return { started, done };
}

export interface SseEvent {
  event: string;
  data: any;
}

/** `GET` an SSE stream to its end. */
export function readSse(url: string): StreamRead<SseEvent> {
  return read<SseEvent>({ url, method: 'GET' }, (buffer) => {
    const items: SseEvent[] = [];
    let rest = buffer;
    let end;
    while ((end = rest.indexOf('\n\n')) !== -1) {
      const block = rest.slice(0, end);
      rest = rest.slice(end + 2);
      items.push({ event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message', data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') });
    }
    return { items, rest };
  });
}

/** `POST /query/stream` and read its NDJSON lines to the end. */
export function readNdjson(server: TestServer, body: Record<string, unknown>, options: ReadOptions = {}): StreamRead<any> {
  const text = JSON.stringify(body);
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  return read<any>(
    { url: `${server.api}/query/stream`, method: 'POST', headers, body: text },
    (buffer) => {
      const lines = buffer.split('\n');
      const rest = lines.pop() ?? '';
      return { items: lines.filter((line) => line !== '').map((line) => JSON.parse(line)), rest };
    },
    options,
  );
}
