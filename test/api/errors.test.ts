/**
 * The error envelope (docs/api.md) and statuses: 404, 400 INVALID_JSON / INVALID_REQUEST, 413, 415, 503
 * BACKPRESSURE and 503 SHUTTING_DOWN, and that nothing a failed request carried is stored.
 */
import { strict as assert } from 'assert';
import http from 'http';
import net from 'net';
import { assertError, dispose, gzip, post, storedBy, waitUntil } from '../helpers/api';
import { request, TestServer } from '../helpers/server';
import { readStoredEvents } from '../helpers/storage';

const JSON_CT = { 'content-type': 'application/json' };

function nativeBatch(tag: string, count: number): string {
  return JSON.stringify(Array.from({ length: count }, (_, i) => ({ event: `${tag} ${i}`, fields: { uid: `${tag}-${i}` } })));
}

/** Stops the server and answers the `_raw` of every event it stored. */
async function storedRaws(server: TestServer): Promise<string[]> {
  assert.equal(await server.stop(), 0, server.log);
  return (await readStoredEvents(server.dataDir)).map((event) => event._raw as string);
}

describe('api: errors', function () {
  // A server per test, so that each test's check of the store sees only its own requests.
  describe('envelope and status (1kb body limit)', () => {
    let server: TestServer;
    let api: string;

    beforeEach(async () => {
      server = await TestServer.start({ set: { 'ingest.max_body_size': '1kb' } });
      api = server.api;
    });

    afterEach(async () => {
      await dispose(server);
    });

    it('404 NOT_FOUND for unknown paths, 405 METHOD_NOT_ALLOWED for a wrong method on a known one', async () => {
      assertError(await request(`${api}/nope`), 404, 'NOT_FOUND', 'GET /api/v1/nope');
      assertError(await request(`${server.url}/nope`), 404, 'NOT_FOUND', 'GET /nope');
      assertError(await post(`${api}/ingest/nope`, '[]', JSON_CT), 404, 'NOT_FOUND', 'POST /ingest/nope');
      assertError(await request(`${api}/ingest`), 405, 'METHOD_NOT_ALLOWED', 'GET /ingest');
      assertError(await post(`${server.url}/ingest`, '[]', JSON_CT), 404, 'NOT_FOUND', 'POST /ingest outside /api/v1');
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });

    it('400 INVALID_JSON on /ingest for malformed or non-array bodies', async () => {
      for (const body of ['[{"event":', '{"event":"x"}', '{"event":"a"}\n{"event":"b"}', 'plain text', '[1, 2', '[{"event":"x"},]', '']) {
        assertError(await post(`${api}/ingest`, body, JSON_CT), 400, 'INVALID_JSON', `/ingest ${JSON.stringify(body)}`);
      }
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });

    it('400 INVALID_JSON on /ingest/hec when no line is a valid event object', async () => {
      for (const body of ['not json', '{"event":"x"', '{"event":"a"\n[1,2]\n"text"']) {
        assertError(await post(`${api}/ingest/hec`, body, JSON_CT), 400, 'INVALID_JSON', `/ingest/hec ${JSON.stringify(body)}`);
      }
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });

    it('400 INVALID_JSON on /es/{index}/_doc, /otlp/v1/logs and PATCH /config', async () => {
      for (const body of ['{"uid":', '[1]', 'text']) {
        assertError(await post(`${api}/es/idx/_doc`, body, JSON_CT), 400, 'INVALID_JSON', `_doc ${JSON.stringify(body)}`);
      }
      for (const body of ['{"resourceLogs":[', '[]', 'text']) {
        assertError(await post(`${api}/otlp/v1/logs`, body, JSON_CT), 400, 'INVALID_JSON', `otlp ${JSON.stringify(body)}`);
      }
      const patch = await request(`${api}/config`, { method: 'PATCH', body: Buffer.from('{"query":'), headers: JSON_CT });
      assertError(patch, 400, 'INVALID_JSON', 'PATCH /config');
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });

    it('/es/_bulk: malformed lines fail per item with status 400, nothing indexed', async () => {
      const answer = await post(`${api}/es/_bulk`, '{"index":{"_index":"x"}}\n{"uid":\nnot json\n', {
        'content-type': 'application/x-ndjson',
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.errors, true);
      assert.ok(answer.body.items.length >= 1);
      for (const item of answer.body.items) {
        const result = Object.values(item)[0] as { status: number; error: { reason: string } };
        assert.equal(result.status, 400, JSON.stringify(item));
        assert.equal(typeof result.error.reason, 'string');
      }
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });

    it('400 INVALID_REQUEST for a corrupt or cut gzip body on every ingest endpoint', async () => {
      const cut = gzip(nativeBatch('cut', 5)).subarray(0, 20);
      for (const [path, type] of [
        ['/ingest', 'application/json'],
        ['/ingest/raw', 'text/plain'],
        ['/ingest/hec', 'application/json'],
        ['/ingest/bulk', 'application/x-ndjson'],
        ['/es/_bulk', 'application/x-ndjson'],
        ['/es/idx/_doc', 'application/json'],
        ['/otlp/v1/logs', 'application/json'],
      ]) {
        for (const [tag, body] of [
          ['garbage', Buffer.from('definitely not gzip')],
          ['cut', cut],
        ] as [string, Buffer][]) {
          const answer = await post(`${api}${path}`, body, { 'content-type': type!, 'content-encoding': 'gzip' });
          assertError(answer, 400, 'INVALID_REQUEST', `${path} ${tag}`);
        }
      }
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });

    it('413 PAYLOAD_TOO_LARGE above ingest.max_body_size, also for a gzip body that inflates past it', async () => {
      const big = nativeBatch('big', 40);
      assert.ok(big.length > 1024);
      const line = JSON.stringify({ event: 'x'.repeat(1100) });
      const bulk = `{"index":{}}\n${JSON.stringify({ pad: 'x'.repeat(1100) })}\n`;
      const otlp = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x'.repeat(1100) } }] }] }] });
      for (const [path, body] of [
        ['/ingest', big],
        ['/ingest/hec', line],
        ['/es/_bulk', bulk],
        ['/ingest/bulk', bulk],
        ['/es/idx/_doc', JSON.stringify({ pad: 'x'.repeat(1100) })],
        ['/otlp/v1/logs', otlp],
      ]) {
        assertError(await post(`${api}${path}`, body!, JSON_CT), 413, 'PAYLOAD_TOO_LARGE', path);
      }
      // 100 KB of JSON compresses to far below the 1 KB limit.
      const bomb = gzip(JSON.stringify(Array.from({ length: 4000 }, () => ({ event: 'bomb' }))));
      assert.ok(bomb.length < 1024, `compressed size ${bomb.length}`);
      assertError(await post(`${api}/ingest`, bomb, { ...JSON_CT, 'content-encoding': 'gzip' }), 413, 'PAYLOAD_TOO_LARGE', 'gzip /ingest');
      assertError(
        await post(`${api}/ingest/hec`, gzip(`${line}\n`.repeat(50)), { 'content-encoding': 'gzip' }),
        413,
        'PAYLOAD_TOO_LARGE',
        'gzip hec',
      );
      // The server keeps answering after rejecting bodies.
      const ok = await post(`${api}/ingest`, nativeBatch('after-413', 1), JSON_CT);
      assert.deepEqual(ok.body, { data: { accepted: 1, failed: 0 } });
      assert.deepEqual(await storedRaws(server), ['after-413 0'], 'only the event accepted after the refusals');
    });

    it('415 for OTLP protobuf', async () => {
      const answer = await post(`${api}/otlp/v1/logs`, Buffer.from([0x0a, 0x00]), { 'content-type': 'application/x-protobuf' });
      assert.equal(answer.status, 415, answer.text);
      assert.deepEqual(Object.keys(answer.body), ['error']);
      assert.equal(typeof answer.body.error.code, 'string');
      assert.equal(typeof answer.body.error.message, 'string');
      assert.deepEqual(await storedRaws(server), [], 'nothing the refused requests carried');
    });
  });

  describe('503 BACKPRESSURE (max_buffered_events=100, no flush)', () => {
    let server: TestServer;
    let api: string;

    before(async () => {
      server = await TestServer.start({ set: { 'ingest.max_buffered_events': 100, 'storage.flush_interval': '1h' } });
      api = server.api;
    });

    after(async () => {
      await dispose(server);
    });

    it('accepts up to the limit, then answers 503 on every ingest endpoint, and stores what it acknowledged only', async () => {
      for (let i = 0; i < 3; i++) {
        const answer = await post(`${api}/ingest`, nativeBatch(`fill${i}`, 30), JSON_CT);
        assert.deepEqual(answer.body, { data: { accepted: 30, failed: 0 } }, `fill ${i}`);
      }
      // 90 + 20 > 100: refused as a whole.
      assertError(await post(`${api}/ingest`, nativeBatch('over', 20), JSON_CT), 503, 'BACKPRESSURE', 'overflowing batch');
      const last = await post(`${api}/ingest`, nativeBatch('last', 10), JSON_CT);
      assert.deepEqual(last.body, { data: { accepted: 10, failed: 0 } });
      const bulk = '{"index":{"_index":"bp"}}\n{"uid":"bp"}\n';
      const otlp = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'bp' } }] }] }] });
      const cases: [string, string, Record<string, string>][] = [
        ['/ingest', nativeBatch('full', 1), JSON_CT],
        ['/ingest/raw', 'full line\n', { 'content-type': 'text/plain' }],
        ['/ingest/hec', '{"event":"full"}', JSON_CT],
        ['/ingest/bulk', bulk, { 'content-type': 'application/x-ndjson' }],
        ['/es/_bulk', bulk, { 'content-type': 'application/x-ndjson' }],
        ['/es/bp/_doc', '{"uid":"bp"}', JSON_CT],
        ['/otlp/v1/logs', otlp, JSON_CT],
      ];
      for (const [path, body, headers] of cases) {
        const answer = await post(`${api}${path}`, body, headers);
        assertError(answer, 503, 'BACKPRESSURE', path);
        assert.equal(answer.headers.get('retry-after'), '1', `Retry-After on 503 ${path}`);
        if (path.includes('bulk') || path.startsWith('/es/')) {
          assert.equal(answer.headers.get('x-elastic-product'), 'Elasticsearch', `x-elastic-product on 503 ${path}`);
        }
      }

      // Everything acknowledged is stored, nothing refused is.
      assert.equal(await server.stop(), 0, server.log);
      const stored = await readStoredEvents(server.dataDir);
      assert.equal(stored.length, 100);
      const uids = stored.map((event) => event.uid as string).sort();
      const expected = [
        ...['fill0', 'fill1', 'fill2'].flatMap((tag) => Array.from({ length: 30 }, (_, i) => `${tag}-${i}`)),
        ...Array.from({ length: 10 }, (_, i) => `last-${i}`),
      ].sort();
      assert.deepEqual(uids, expected);
    });
  });

  describe('503 SHUTTING_DOWN (SIGTERM under load)', () => {
    let server: TestServer;

    before(async () => {
      server = await TestServer.start({ set: { 'http.shutdown_timeout': '10s' } });
    });

    after(async () => {
      await dispose(server, true);
    });

    type Outcome = { kind: 'answer'; status: number; code?: string; uids: string[] } | { kind: 'error'; message: string; uids: string[] };

    /** One POST on a keep-alive agent. */
    function send(agent: http.Agent, body: string, uids: string[]): Promise<Outcome> {
      return new Promise((resolve) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: '/api/v1/ingest',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let code: string | undefined;
              try {
                code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
              } catch {
                code = `unparseable: ${text.slice(0, 100)}`;
              }
              resolve({ kind: 'answer', status: res.statusCode ?? 0, code, uids });
            });
            res.on('error', (error) => resolve({ kind: 'error', message: error.message, uids }));
          },
        );
        req.on('error', (error) => resolve({ kind: 'error', message: error.message, uids }));
        req.end(body);
      });
    }

    it('answers 200 or 503 SHUTTING_DOWN, exits 0, and stores every acknowledged event', async function () {
      const workers = 4;
      const outcomes: Outcome[] = [];
      let acked = 0;
      let signalled = false;
      const loop = async (w: number): Promise<void> => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let n = 0; n < 10_000; n++) {
            const uids = Array.from({ length: 50 }, (_, i) => `w${w}-r${n}-e${i}`);
            const body = JSON.stringify(uids.map((uid) => ({ event: `shutdown ${uid}`, fields: { uid } })));
            const outcome = await send(agent, body, uids);
            outcomes.push(outcome);
            if (outcome.kind === 'answer' && outcome.status === 200) acked++;
            if (outcome.kind === 'error' || outcome.status !== 200) return;
            if (acked >= 40 && !signalled) {
              signalled = true;
              server.process.kill('SIGTERM');
            }
          }
        } finally {
          agent.destroy();
        }
      };
      await Promise.all(Array.from({ length: workers }, (_, w) => loop(w)));
      assert.ok(signalled, 'SIGTERM was sent');
      assert.equal(await server.exited(), 0, server.log);

      const answers = outcomes.filter((o): o is Extract<Outcome, { kind: 'answer' }> => o.kind === 'answer');
      for (const answer of answers) {
        const ok = answer.status === 200 || (answer.status === 503 && answer.code === 'SHUTTING_DOWN');
        assert.ok(ok, `unexpected answer ${answer.status} ${answer.code}`);
      }
      const ackedUids = answers.filter((a) => a.status === 200).flatMap((a) => a.uids);
      const ackedSet = new Set(ackedUids);
      const unknown = new Set(outcomes.filter((o) => o.kind === 'error').flatMap((o) => o.uids));
      const stored = await readStoredEvents(server.dataDir);
      const storedUids = new Set<string>();
      for (const event of stored) {
        const uid = event.uid as string;
        assert.ok(!storedUids.has(uid), `stored twice: ${uid}`);
        storedUids.add(uid);
      }
      for (const uid of ackedUids) assert.ok(storedUids.has(uid), `acknowledged but not stored: ${uid}`);
      for (const uid of storedUids) assert.ok(unknown.has(uid) || ackedSet.has(uid), `stored but answered 503: ${uid}`);
      const summary = {
        acked: ackedUids.length / 50,
        shuttingDown: answers.filter((a) => a.status === 503).length,
        errors: unknown.size / 50,
      };
      assert.ok(summary.acked >= 40, JSON.stringify(summary));
      storedBy(stored, 'uid', ackedUids[0]);
      // Connection errors are keep-alive sockets closed as idle while a request was on its way: outcome unknown.
      if (process.env.TRAWL_TEST_VERBOSE) console.log(`      shutdown outcomes: ${JSON.stringify(summary)}`);
    });
  });

  describe('503 SHUTTING_DOWN (request pipelined behind one in flight)', () => {
    let server: TestServer;

    before(async () => {
      server = await TestServer.start({ set: { 'http.shutdown_timeout': '10s' } });
    });

    after(async () => {
      await dispose(server, true);
    });

    it('finishes the in-flight request with 200, answers the next one 503 SHUTTING_DOWN, exits 0', async () => {
      const head = (body: string): string =>
        `POST /api/v1/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
      const first = nativeBatch('inflight', 3);
      const second = nativeBatch('pipelined', 3);
      const socket = net.connect(server.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => undefined);
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
      // The first request is admitted (the server answered 100 Continue) and its body still to come
      // when the signal lands.
      socket.write(head(first).replace('\r\n\r\n', '\r\nExpect: 100-continue\r\n\r\n') + first.slice(0, 10));
      await waitUntil(() => received.includes('HTTP/1.1 100 Continue'), 10_000, 'the first request admitted');
      server.process.kill('SIGTERM');
      await server.waitFor(/SIGTERM received/, 10_000);
      socket.write(first.slice(10) + head(second) + second);
      await closed;
      const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])).filter((status) => status >= 200);
      assert.deepEqual(statuses, [200, 503], received);
      assert.ok(received.includes('{"data":{"accepted":3,"failed":0}}'), received);
      const lastBody = received.slice(received.lastIndexOf('\r\n\r\n') + 4);
      assert.deepEqual(JSON.parse(lastBody).error.code, 'SHUTTING_DOWN');
      assert.equal(await server.exited(), 0, server.log);
      const stored = await readStoredEvents(server.dataDir);
      assert.deepEqual(stored.map((event) => event.uid).sort(), ['inflight-0', 'inflight-1', 'inflight-2']);
    });
  });
});
