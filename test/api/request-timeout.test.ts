/**
 * `http.request_timeout` bounds receiving a request, headers and body, and nothing else: a stalled
 * or trickling client is cut with 408 in the envelope, a change by PATCH /config or SIGHUP applies
 * to the next request, and answers that last longer (a sync query, an SSE job stream, an NDJSON
 * export read slowly) run to their end.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import net from 'net';
import path from 'path';
import { assertError, dispose, patchConfig, waitUntil } from '../helpers/api';
import { hashingQuery, ingestLines, readNdjson, readSse } from '../helpers/long-answers';
import { rawExchange, type RawAnswer } from '../helpers/raw-http';
import { postJson, request, tempDir, TestServer } from '../helpers/server';

/** A request whose headers never end. */
const STALLED_HEADERS = 'GET /api/v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n';

function assertCutAfter(answer: RawAnswer, timeoutMs: number, context: string): void {
  assertError(answer, 408, 'REQUEST_TIMEOUT', context);
  assert.ok(answer.closed, `connection closed after the 408 (${context})`);
  assert.ok(
    answer.elapsedMs >= timeoutMs - 50 && answer.elapsedMs < timeoutMs + 2000,
    `${context}: cut after ${answer.elapsedMs} ms, timeout ${timeoutMs} ms`,
  );
}

describe('api: http.request_timeout', function () {
  this.timeout(60_000);

  describe('follows reloads', () => {
    let server: TestServer;
    let file: string;

    before(async () => {
      file = path.join(tempDir('trawl-config-'), 'trawl.yaml');
      fs.writeFileSync(file, 'http:\n  request_timeout: 30s\n');
      server = await TestServer.start({ args: ['--config', file] });
    });

    after(async () => {
      await dispose(server);
    });

    it('a PATCH /config change applies to the next request, without a restart', async () => {
      const patched = await patchConfig(server, { http: { request_timeout: '800ms' } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.data.restart_required, []);
      assertCutAfter(await rawExchange(server.port, STALLED_HEADERS, { awaitClose: true }), 800, 'after PATCH');
    });

    it('a SIGHUP reload of the file applies too', async () => {
      fs.writeFileSync(file, 'http:\n  request_timeout: 1200ms\n');
      server.process.kill('SIGHUP');
      await waitUntil(
        async () => (await request(`${server.api}/config`)).body.data.http.request_timeout === '1200ms',
        10_000,
        'the reloaded timeout',
      );
      assertCutAfter(await rawExchange(server.port, STALLED_HEADERS, { awaitClose: true }), 1200, 'after SIGHUP');
    });
  });

  describe('slow clients (1s)', () => {
    let server: TestServer;

    before(async () => {
      server = await TestServer.start({ set: { 'http.request_timeout': '1s' } });
    });

    after(async () => {
      await dispose(server);
    });

    it('a client trickling its body is cut at the timeout, and nothing it sent is stored', async () => {
      const socket = net.connect(server.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.on('error', () => undefined);
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      const started = Date.now();
      socket.write('POST /api/v1/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[');
      // A byte every 100 ms: the connection is never idle, but the request never ends.
      const trickle = setInterval(() => socket.write('{"event":"trickled"},'), 100);
      await closed;
      clearInterval(trickle);
      const elapsed = Date.now() - started;
      assert.match(received, /^HTTP\/1\.1 408 /, received);
      const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4));
      assert.equal(body.error.code, 'REQUEST_TIMEOUT');
      assert.ok(elapsed >= 950 && elapsed < 3000, `cut after ${elapsed} ms`);
      assert.equal((await request(`${server.api}/stats`)).body.data.total_events, 0);
    });
  });

  describe('answers longer than the timeout (500ms)', () => {
    const EVENTS = 100_000;
    let server: TestServer;

    before(async () => {
      server = await TestServer.start({ set: { 'http.request_timeout': '500ms' } });
      await ingestLines(server, EVENTS);
    });

    after(async () => {
      await dispose(server);
    });

    it('a sync query gets its 200', async () => {
      const started = Date.now();
      const answer = await postJson(`${server.api}/query`, { q: hashingQuery(30, 'sync') });
      const elapsed = Date.now() - started;
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.data.rows, [[EVENTS]]);
      assert.ok(elapsed > 750, `the query took ${elapsed} ms, too short to outlast the 500 ms timeout by half`);
    });

    it('an SSE job stream lasts to its complete event', async () => {
      const handle = await postJson(`${server.api}/query`, { q: hashingQuery(30, 'sse'), wait: 0 });
      assert.equal(handle.status, 202, handle.text);
      const { status, items, elapsedMs, complete } = await readSse(`${server.api}/query/jobs/${handle.body.data.job_id}/stream`).done;
      assert.equal(status, 200);
      assert.ok(complete, 'the stream ended normally');
      assert.ok(elapsedMs > 750, `the stream lasted ${elapsedMs} ms, too short to outlast the 500 ms timeout by half`);
      assert.ok(items.length >= 2, JSON.stringify(items));
      assert.equal(items[0]!.event, 'progress');
      const last = items[items.length - 1]!;
      assert.equal(last.event, 'complete');
      assert.deepEqual(last.data.data.rows, [[EVENTS]]);
    });

    it('an NDJSON export read slowly runs to its __meta line', async () => {
      // Rows of ~800 bytes: far more than the socket buffers hold, so the server waits on the reader.
      const wide = `from main | extend wide = concat(${Array.from({ length: 8 }, () => '_raw').join(', ')}) | keep _time, _raw, wide`;
      const { status, items, elapsedMs, complete } = await readNdjson(server, { q: wide }, { pauseAfterFirstChunkMs: 2000 }).done;
      assert.equal(status, 200);
      assert.ok(complete, 'the export ended normally');
      assert.ok(elapsedMs >= 2000, `the export lasted ${elapsedMs} ms`);
      const meta = items.pop();
      assert.ok(meta?.__meta !== undefined, `the last line is __meta: ${JSON.stringify(meta)}`);
      assert.ok(items.length > 10_000, `${items.length} rows`);
      assert.equal(meta.__meta.total, items.length);
      assert.ok(items.every((row) => row.wide === String(row._raw).repeat(8)));
    });
  });
});
