/**
 * SIGTERM with `http.shutdown_timeout` at its 30 s default: requests in flight finish, new ones
 * (on new connections and on kept-alive ones) are answered 503 SHUTTING_DOWN with
 * `connection: close` while the listener stays open, idle keep-alive connections are closed,
 * streams end, the process exits 0 in seconds, and every acknowledged event is there after a restart.
 */
import { strict as assert } from 'assert';
import http from 'http';
import net from 'net';
import { assertError, dispose, waitUntil } from '../helpers/api';
import { hashingQuery, ingestLines, readNdjson, readSse } from '../helpers/long-answers';
import { head, rawExchange } from '../helpers/raw-http';
import { postJson, request, TestServer } from '../helpers/server';
import { readStoredEvents } from '../helpers/storage';

/** The process must be gone this soon after SIGTERM (the shutdown timeout is 30 s). */
const PROMPT_EXIT_MS = 5000;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * A POST the server has admitted before its body is sent (it answered `100 Continue`), so it is
 * in flight for sure when a signal follows `admitted`; `send()` then sends the body.
 */
function admittedPost(port: number, path: string, body: string): { admitted: Promise<void>; send: () => void; reply: Promise<Reply> } {
  let markAdmitted!: () => void;
  const admitted = new Promise<void>((resolve) => (markAdmitted = resolve));
  const req = http.request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  });
  req.on('continue', () => markAdmitted());
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { admitted, send: () => req.end(body), reply };
}

function batch(tag: string, count: number): { body: string; uids: string[] } {
  const uids = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
  return { body: JSON.stringify(uids.map((uid) => ({ event: `shutdown ${uid}`, fields: { uid } }))), uids };
}

async function countAfterRestart(dataDir: string): Promise<number> {
  const restarted = await TestServer.start({ dataDir });
  try {
    const answer = await postJson(`${restarted.api}/query`, { q: 'from main | stats count()' });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.data.rows[0][0] as number;
  } finally {
    assert.equal(await restarted.stop(), 0, restarted.log);
  }
}

describe('api: graceful shutdown', function () {
  this.timeout(90_000);

  describe('while a request is in flight', () => {
    let server: TestServer;

    before(async () => {
      server = await TestServer.start();
    });

    after(async () => {
      await dispose(server, true);
    });

    it('answers new connections 503 SHUTTING_DOWN, closes idle keep-alive ones, finishes the request, exits 0 at once', async () => {
      // A kept-alive connection that has had its answer and is now idle.
      const idle = net.connect(server.port, '127.0.0.1');
      idle.on('error', () => undefined);
      let idleClosedAt = 0;
      idle.on('close', () => (idleClosedAt = Date.now()));
      const firstAnswer = new Promise<void>((resolve) => idle.once('data', () => resolve()));
      idle.write(head('GET', '/health'));
      await firstAnswer;

      const inFlight = batch('inflight', 3);
      const upload = admittedPost(server.port, '/api/v1/ingest', inFlight.body);
      await upload.admitted;
      const signalled = Date.now();
      server.process.kill('SIGTERM');
      await server.waitFor(/SIGTERM received/, 5000);

      await waitUntil(() => idleClosedAt > 0, 2000, 'the idle keep-alive connection to be closed');
      const refused = await rawExchange(server.port, head('GET', '/api/v1/stats'), { awaitClose: true });
      assertError(refused, 503, 'SHUTTING_DOWN', 'a new connection during the drain');
      assert.equal(refused.headers.get('connection'), 'close');
      assert.ok(refused.closed, 'the connection is closed after the 503');
      assert.equal(server.process.exitCode, null, 'the process waits for the request in flight');

      upload.send();
      const reply = await upload.reply;
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.body, { data: { accepted: 3, failed: 0 } });
      assert.equal(await server.exited(), 0, server.log);
      assert.ok(Date.now() - signalled < PROMPT_EXIT_MS, `exited ${Date.now() - signalled} ms after SIGTERM`);
      const stored = await readStoredEvents(server.dataDir);
      assert.deepEqual(stored.map((event) => event.uid).sort(), inFlight.uids);
    });
  });

  describe('keep-alive clients that keep posting', () => {
    let server: TestServer;

    before(async () => {
      server = await TestServer.start();
    });

    after(async () => {
      await dispose(server, true);
    });

    type Outcome =
      | { kind: 'answer'; status: number; code: string | undefined; connection: string | undefined; uids: string[] }
      | { kind: 'error'; message: string; uids: string[] };

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
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
            res.on('end', () => {
              let code: string | undefined;
              try {
                code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
              } catch {
                code = `not JSON: ${text.slice(0, 100)}`;
              }
              resolve({ kind: 'answer', status: res.statusCode ?? 0, code, connection: res.headers.connection, uids });
            });
            res.on('error', (error) => resolve({ kind: 'error', message: error.message, uids }));
          },
        );
        req.on('error', (error) => resolve({ kind: 'error', message: error.message, uids }));
        req.end(body);
      });
    }

    it('every request is acknowledged and stored, or refused 503 with connection: close (or cut) and not stored; exit in seconds', async () => {
      const outcomes: Outcome[] = [];
      const refusedBy = [0, 0, 0, 0];
      let acked = 0;
      let listenerClosed = false;
      // Each client retries after a 503 or a cut connection, as a shipper does, until the listener is gone.
      const client = async (w: number): Promise<void> => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let n = 0; n < 5000 && !listenerClosed; n++) {
            const { body, uids } = batch(`w${w}-r${n}`, 20);
            const outcome = await send(agent, body, uids);
            outcomes.push(outcome);
            if (outcome.kind === 'answer' && outcome.status === 200) acked++;
            if (outcome.kind === 'answer' && outcome.status === 503) refusedBy[w]!++;
            if (outcome.kind === 'error' && /ECONNREFUSED/.test(outcome.message)) listenerClosed = true;
          }
        } finally {
          agent.destroy();
        }
      };
      const clients = Promise.all([0, 1, 2, 3].map(client));
      await waitUntil(() => acked >= 40, 20_000, '40 acknowledged batches');
      // A request in flight holds the drain open while the clients keep posting.
      const held = batch('held', 5);
      const holder = admittedPost(server.port, '/api/v1/ingest', held.body);
      await holder.admitted;
      server.process.kill('SIGTERM');
      await waitUntil(() => refusedBy.every((count) => count >= 2), 10_000, 'every client refused during the drain');
      holder.send();
      const heldReply = await holder.reply;
      const released = Date.now();
      assert.deepEqual(heldReply.body, { data: { accepted: 5, failed: 0 } });
      await clients;
      assert.equal(await server.exited(), 0, server.log);
      assert.ok(Date.now() - released < PROMPT_EXIT_MS, `exited ${Date.now() - released} ms after the last request in flight`);
      assert.ok(listenerClosed, 'the clients met the closed listener at last');

      const answers = outcomes.filter((o): o is Extract<Outcome, { kind: 'answer' }> => o.kind === 'answer');
      const refused = answers.filter((answer) => answer.status !== 200);
      assert.ok(refused.length >= 8, `${refused.length} refused`);
      for (const answer of refused) {
        assert.equal(answer.status, 503, `unexpected answer ${answer.status} ${answer.code}`);
        assert.equal(answer.code, 'SHUTTING_DOWN');
        assert.equal(answer.connection, 'close');
      }
      const ackedUids = [...answers.filter((answer) => answer.status === 200).flatMap((answer) => answer.uids), ...held.uids];
      assert.equal(ackedUids.length, acked * 20 + 5);
      const unknown = new Set(outcomes.filter((o) => o.kind === 'error').flatMap((o) => o.uids));
      const stored = await readStoredEvents(server.dataDir);
      const storedUids = new Set(stored.map((event) => event.uid as string));
      assert.equal(storedUids.size, stored.length, 'no event is stored twice');
      for (const uid of ackedUids) assert.ok(storedUids.has(uid), `acknowledged but not stored: ${uid}`);
      const ackedSet = new Set(ackedUids);
      for (const uid of storedUids) assert.ok(ackedSet.has(uid) || unknown.has(uid), `stored but refused: ${uid}`);
      assert.equal(await countAfterRestart(server.dataDir), stored.length);
    });
  });

  describe('with answers in flight', () => {
    const EVENTS = 100_000;
    let server: TestServer;

    beforeEach(async () => {
      server = await TestServer.start();
      await ingestLines(server, EVENTS);
    });

    afterEach(async () => {
      await dispose(server, true);
    });

    it('ends an SSE job stream and an NDJSON export at once and exits in seconds', async () => {
      // Each of these would run for about 20 s.
      const job = await postJson(`${server.api}/query`, { q: hashingQuery(300, 'job'), wait: 0 });
      assert.equal(job.status, 202, job.text);
      const sse = readSse(`${server.api}/query/jobs/${job.body.data.job_id}/stream`);
      const exportQuery = hashingQuery(300, 'export', 'rows');
      const ndjson = readNdjson(server, { q: exportQuery });
      await sse.started;
      // The export sends nothing before its first rows: its job running says it has begun.
      await waitUntil(
        async () =>
          (await request(`${server.api}/query/jobs?status=running`)).body.data.jobs.some(
            (listed: { query: string }) => listed.query === exportQuery,
          ),
        10_000,
        'the export job',
      );

      const signalled = Date.now();
      server.process.kill('SIGTERM');
      const [sseRead, ndjsonRead] = await Promise.all([sse.done, ndjson.done]);
      const lastEvent = sseRead.items[sseRead.items.length - 1];
      assert.equal(lastEvent?.event, 'canceled', JSON.stringify(sseRead.items.map((item) => item.event)));
      const lastLine = ndjsonRead.items[ndjsonRead.items.length - 1];
      assert.equal(lastLine?.__error?.code, 'QUERY_CANCELED', JSON.stringify(lastLine));
      assert.match(lastLine.__error.message, /shutting down/);
      assert.equal(await server.exited(), 0, server.log);
      assert.ok(Date.now() - signalled < PROMPT_EXIT_MS, `exited ${Date.now() - signalled} ms after SIGTERM`);
    });

    it('lets a sync query in flight finish with its result', async () => {
      const sync = admittedPost(server.port, '/api/v1/query', JSON.stringify({ q: hashingQuery(20, 'sync') }));
      await sync.admitted;
      server.process.kill('SIGTERM');
      await server.waitFor(/SIGTERM received/, 5000);
      sync.send();
      const reply = await sync.reply;
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body.data.rows, [[EVENTS]]);
      const answered = Date.now();
      assert.equal(await server.exited(), 0, server.log);
      assert.ok(Date.now() - answered < PROMPT_EXIT_MS, `exited ${Date.now() - answered} ms after the answer`);
    });
  });
});
