/**
 * Large bodies are parsed in ingest worker threads, small ones in place (node/ingest/parser-pool.ts).
 * Differential test through HTTP: the same events sent as one large body and as many small ones
 * give the same answers and store the same events; errors from a worker keep their status and code.
 */
import { strict as assert } from 'assert';
import http from 'http';
import { INLINE_PARSE_BYTES } from '../../node/ingest/parser-pool';
import { assertError, dispose, post } from '../helpers/api';
import { TestServer } from '../helpers/server';
import { readStoredEvents, type StoredEvent } from '../helpers/storage';

const BASE_SECONDS = 1_700_000_000;

/** Posts a body in pieces, a pause between them: it is being read while other requests come and go. */
function postSlowly(url: string, body: Buffer, pieces: number, pauseMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    const size = Math.ceil(body.length / pieces);
    const write = (piece: number): void => {
      if (piece === pieces) {
        request.end();
        return;
      }
      request.write(body.subarray(piece * size, (piece + 1) * size));
      setTimeout(() => write(piece + 1), pauseMs);
    };
    write(0);
  });
}

function nativeEvents(index: string, count: number): unknown[] {
  return Array.from({ length: count }, (_, i) =>
    i % 250 === 7
      ? { event: i } // not a string: fails alone
      : {
          event: `GET /item/${i} 200 ${'x'.repeat(i % 40)} é`,
          time: BASE_SECONDS + i / 1000,
          host: `web-${i % 5}`,
          index,
          fields: { status: i % 7 === 0 ? 'n/a' : 200 + (i % 3), ok: i % 2 === 0, nested: { depth: i } },
        },
  );
}

/** A stored event without what differs by design between the two runs (index, source label). */
function comparable(event: StoredEvent): string {
  const { index: _index, source: _source, ...rest } = event;
  return JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))));
}

function sameEvents(stored: StoredEvent[], a: (e: StoredEvent) => boolean, b: (e: StoredEvent) => boolean, expected: number): void {
  const left = stored.filter(a).map(comparable).sort();
  const right = stored.filter(b).map(comparable).sort();
  assert.equal(left.length, expected);
  assert.deepEqual(left, right);
}

describe('api: large bodies are parsed in ingest workers', function () {
  this.timeout(120_000);
  let server: TestServer;

  // A server per test, so that each test reads back from the data dir only what it sent.
  beforeEach(async () => {
    // The events carry fixed 2023 times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { retention: '3650d' } });
  });

  afterEach(async () => {
    await dispose(server);
  });

  /** Stops the server and reads what it stored. */
  async function storedAfterStop(): Promise<StoredEvent[]> {
    assert.equal(await server.stop(), 0, server.log);
    return readStoredEvents(server.dataDir);
  }

  it('/ingest: one large body and many small ones give the same counts and per-element errors', async () => {
    const large = JSON.stringify(nativeEvents('large', 4000));
    assert.ok(large.length > 4 * INLINE_PARSE_BYTES, 'the large body must take the worker path');
    const answer = await post(`${server.api}/ingest`, large, { 'content-type': 'application/json' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, 4000 - 16);
    assert.equal(answer.body.data.failed, 16);
    assert.deepEqual(answer.body.data.errors[1], { item: 257, code: 'invalid', reason: "'event' must be a string" });

    const small = nativeEvents('small', 4000);
    let accepted = 0;
    for (let i = 0; i < small.length; i += 100) {
      const part = await post(`${server.api}/ingest`, JSON.stringify(small.slice(i, i + 100)), { 'content-type': 'application/json' });
      assert.equal(part.status, 200, part.text);
      accepted += part.body.data.accepted;
    }
    assert.equal(accepted, 4000 - 16);

    // The large and the small requests stored the same events.
    const stored = await storedAfterStop();
    sameEvents(
      stored,
      (e) => e.index === 'large',
      (e) => e.index === 'small',
      4000 - 16,
    );
    const one = stored.find((e) => e.index === 'large' && e._raw.startsWith('GET /item/14 '));
    assert.ok(one !== undefined);
    assert.equal(one.status, 'n/a');
    assert.equal(one.ok, true);
    assert.equal(one['nested.depth'], 14);
  });

  it('/ingest: a large malformed body is INVALID_JSON from the worker, and a large object is refused', async () => {
    const large = JSON.stringify(nativeEvents('bad', 2000));
    assertError(
      await post(`${server.api}/ingest`, `${large.slice(0, -1)},}]`, { 'content-type': 'application/json' }),
      400,
      'INVALID_JSON',
    );
    assertError(await post(`${server.api}/ingest`, `{"events": ${large}}`, { 'content-type': 'application/json' }), 400, 'INVALID_JSON');
    assert.equal((await storedAfterStop()).filter((e) => e.index === 'bad').length, 0, 'nothing of a refused body was stored');
  });

  it('/ingest/bulk: a large body answers item by item, in order, like small ones', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 1500; i++) {
      lines.push(JSON.stringify(i % 100 === 3 ? { update: { _id: `u${i}` } } : { index: { _index: 'orders' } }));
      lines.push(JSON.stringify({ '@timestamp': new Date((BASE_SECONDS + i) * 1000).toISOString(), order: i, note: 'y'.repeat(i % 30) }));
    }
    const answer = await post(`${server.api}/ingest/bulk`, `${lines.join('\n')}\n`, { 'content-type': 'application/x-ndjson' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.items.length, 1500);
    assert.equal(answer.body.errors, true);
    assert.equal(answer.body.items[0].index.status, 201);
    assert.equal(answer.body.items[3].update.status, 400);
    assert.equal(
      answer.body.items.filter((item: Record<string, { status: number }>) => Object.values(item)[0].status === 201).length,
      1485,
    );
    assert.equal((await storedAfterStop()).filter((e) => e.source === 'orders').length, 1485);
  });

  it('/ingest/raw and /ingest/hec: large bodies', async () => {
    const rawLines = Array.from(
      { length: 3000 },
      (_, i) => `2024-05-01T10:00:${String(i % 60).padStart(2, '0')}Z ERROR line ${i} ${'z'.repeat(i % 50)}`,
    );
    const raw = await post(`${server.api}/ingest/raw`, rawLines.join('\n'), { 'x-source': 'bigraw' });
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(raw.body.data, { accepted: 3000, failed: 0, truncated: false });

    const hecLines = Array.from({ length: 3000 }, (_, i) =>
      i === 10 ? 'not json' : JSON.stringify({ event: `hec ${i} ${'q'.repeat(i % 40)}`, source: 'bighec', time: BASE_SECONDS + i }),
    );
    const hec = await post(`${server.api}/ingest/hec`, hecLines.join('\n'));
    assert.equal(hec.status, 200, hec.text);
    assert.equal(hec.body.text, 'Success');
    assert.equal(hec.body.accepted, 2999);
    assert.equal(hec.body.failed, 1);

    const stored = await storedAfterStop();
    assert.equal(stored.filter((e) => e.source === 'bigraw' && e.level === 'error').length, 3000);
    assert.equal(stored.filter((e) => e.source === 'bighec').length, 2999);
  });

  it('/ingest: large bodies stay apart, three at a time, two of them slow, refused ones too', async () => {
    const sizes = [3000, 1200, 2600, 900, 3100, 1500, 2000, 800, 2900, 1000, 2200, 1700];
    let next = 0;
    const send = async (until = sizes.length): Promise<void> => {
      while (next < until) {
        const body = next++;
        const events = Array.from({ length: sizes[body] }, (_, i) => ({
          event: `body ${body} event ${i} ${'p'.repeat(i % 60)}`,
          time: BASE_SECONDS + i,
          index: `body${body}`,
        }));
        const text = JSON.stringify(events);
        assert.ok(text.length > INLINE_PARSE_BYTES);
        if (body % 4 === 3) {
          assertError(
            await post(`${server.api}/ingest`, `${text.slice(0, -1)},]`, { 'content-type': 'application/json' }),
            400,
            'INVALID_JSON',
          );
          continue;
        }
        const answer = await post(`${server.api}/ingest`, text, { 'content-type': 'application/json' });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.data.accepted, sizes[body]);
      }
    };
    // Two slow bodies are being read while the others are parsed and answered.
    const slow = (name: string): Buffer =>
      Buffer.from(
        JSON.stringify(
          Array.from({ length: 2500 }, (_, i) => ({
            event: `${name} event ${i} ${'s'.repeat(i % 50)}`,
            time: BASE_SECONDS + i,
            index: name,
          })),
        ),
      );
    await send(3);
    const slowAnswers = Promise.all([
      postSlowly(`${server.api}/ingest`, slow('slow0'), 6, 40),
      postSlowly(`${server.api}/ingest`, slow('slow1'), 5, 55),
    ]);
    await Promise.all([send(), send(), send()]);
    for (const answer of await slowAnswers) assert.equal(answer.status, 200, answer.text);

    // Every event of the concurrent bodies is its own body's, whole; nothing of a refused body is stored.
    const stored = await storedAfterStop();
    sizes.forEach((size, body) => {
      const mine = stored.filter((e) => e.index === `body${body}`);
      if (body % 4 === 3) {
        assert.equal(mine.length, 0);
        return;
      }
      const raws = mine.map((e) => e._raw).sort();
      const expected = Array.from({ length: size }, (_, i) => `body ${body} event ${i} ${'p'.repeat(i % 60)}`).sort();
      assert.deepEqual(raws, expected);
    });
    for (const name of ['slow0', 'slow1']) {
      const raws = stored
        .filter((e) => e.index === name)
        .map((e) => e._raw)
        .sort();
      assert.deepEqual(raws, Array.from({ length: 2500 }, (_, i) => `${name} event ${i} ${'s'.repeat(i % 50)}`).sort());
    }
  });
});
