/**
 * Errors answered before or around the routes, probed on raw sockets against every endpoint: a
 * body shorter than its Content-Length, bad chunked encoding, a 100 KB query string, bad JSON, an
 * invalid Content-Type, a wrong method (405 with Allow), an unknown path, stalled headers and a
 * stalled body (408 within http.request_timeout). Every answer is the error envelope (docs/api.md).
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { assertError, dispose } from '../helpers/api';
import { head, rawExchange, type RawAnswer } from '../helpers/raw-http';
import { request, TestServer } from '../helpers/server';

interface Endpoint {
  method: string;
  path: string;
  /** The route reads a JSON body (bad JSON is 400 INVALID_JSON). */
  json?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/api/v1/status' },
  { method: 'GET', path: '/api/v1/stats' },
  { method: 'GET', path: '/api/v1/metrics' },
  { method: 'GET', path: '/api/v1/cache/stats' },
  { method: 'DELETE', path: '/api/v1/cache' },
  { method: 'GET', path: '/api/v1/compaction/history' },
  { method: 'GET', path: '/api/v1/cluster/status' },
  { method: 'GET', path: '/api/v1/config' },
  { method: 'PATCH', path: '/api/v1/config', json: true },
  { method: 'POST', path: '/api/v1/ingest', json: true },
  { method: 'POST', path: '/api/v1/ingest/raw' },
  { method: 'POST', path: '/api/v1/ingest/hec', json: true },
  { method: 'POST', path: '/api/v1/ingest/bulk' },
  { method: 'POST', path: '/api/v1/es/_bulk' },
  { method: 'POST', path: '/api/v1/es/idx/_doc', json: true },
  { method: 'GET', path: '/api/v1/es/' },
  { method: 'POST', path: '/api/v1/otlp/v1/logs', json: true },
  { method: 'POST', path: '/api/v1/query', json: true },
  { method: 'GET', path: '/api/v1/query' },
  { method: 'POST', path: '/api/v1/query/stream', json: true },
  { method: 'GET', path: '/api/v1/query/explain' },
  { method: 'GET', path: '/api/v1/query/jobs' },
  { method: 'GET', path: '/api/v1/query/jobs/qry_none' },
  { method: 'DELETE', path: '/api/v1/query/jobs/qry_none' },
  { method: 'GET', path: '/api/v1/query/jobs/qry_none/stream' },
];
/** Routes that read from disk before they answer: the page (its file) and the compaction history (the store). */
const ROUTES_WAITING_ON_IO: ReadonlySet<string> = new Set(['/', '/api/v1/compaction/history']);
const WITH_BODY = ENDPOINTS.filter((endpoint) => ['POST', 'PATCH', 'PUT'].includes(endpoint.method));
const REQUEST_TIMEOUT_MS = 1000;

/** What node itself answers (no route ran): the envelope, then the connection is closed. */
function assertClosingError(answer: RawAnswer, status: number, code: string, context: string): void {
  assertError(answer, status, code, context);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `content type ${context}`);
  assert.ok(answer.closed, `the server closes the connection after ${status} ${context}`);
}

const label = (endpoint: Endpoint): string => `${endpoint.method} ${endpoint.path}`;

describe('api: HTTP-level errors in the envelope', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await TestServer.start({ set: { 'http.request_timeout': `${REQUEST_TIMEOUT_MS}ms` } });
  });

  after(async () => {
    await dispose(server);
  });

  it('covers every endpoint of docs/api.md, with and without bodies', () => {
    assert.equal(ENDPOINTS.length, 27);
    assert.equal(WITH_BODY.length, 10);
  });

  it('431 HEADERS_TOO_LARGE for a 100 KB query string', async () => {
    for (const endpoint of ENDPOINTS) {
      const answer = await rawExchange(server.port, head(endpoint.method, `${endpoint.path}?q=${'a'.repeat(100_000)}`), {
        awaitClose: true,
      });
      assertClosingError(answer, 431, 'HEADERS_TOO_LARGE', label(endpoint));
    }
  });

  it('414 URI_TOO_LONG for a path segment over 100 characters, saying the limit and not echoing the path', async () => {
    const id = `qry_${'a'.repeat(300)}`;
    const answer = await request(`${server.api}/query/jobs/${id}`);
    assertError(answer, 414, 'URI_TOO_LONG');
    assert.match(answer.body.error.message, /longer than 100 characters/);
    assert.ok(!answer.body.error.message.includes(id), 'the path is not echoed');
  });

  it('400 INVALID_REQUEST for a body shorter than its Content-Length (the client half-closes)', async () => {
    for (const endpoint of WITH_BODY) {
      const text = head(endpoint.method, endpoint.path, { 'content-type': 'application/json', 'content-length': 100 }) + '[{"event":';
      const answer = await rawExchange(server.port, text, { halfClose: true, awaitClose: true });
      assertClosingError(answer, 400, 'INVALID_REQUEST', label(endpoint));
      assert.match(answer.body.error.message, /before the request was complete/);
    }
  });

  it('400 INVALID_REQUEST for bad chunked encoding', async () => {
    for (const endpoint of WITH_BODY) {
      const text =
        head(endpoint.method, endpoint.path, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }) +
        'zz\r\n[1]\r\n0\r\n\r\n';
      const answer = await rawExchange(server.port, text, { awaitClose: true });
      assertClosingError(answer, 400, 'INVALID_REQUEST', label(endpoint));
      assert.match(answer.body.error.message, /chunked/);
    }
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a Content-Type that is not a media type', async () => {
    for (const endpoint of WITH_BODY) {
      const answer = await rawExchange(
        server.port,
        head(endpoint.method, endpoint.path, { 'content-type': ';;', 'content-length': 2 }) + '{}',
      );
      assertError(answer, 415, 'UNSUPPORTED_MEDIA_TYPE', label(endpoint));
    }
  });

  it('400 INVALID_JSON for a JSON body that does not parse', async () => {
    const json = WITH_BODY.filter((endpoint) => endpoint.json);
    assert.equal(json.length, 7);
    for (const endpoint of json) {
      const answer = await rawExchange(
        server.port,
        head(endpoint.method, endpoint.path, { 'content-type': 'application/json', 'content-length': 5 }) + '{nope',
      );
      assertError(answer, 400, 'INVALID_JSON', label(endpoint));
    }
  });

  it('405 METHOD_NOT_ALLOWED with an Allow header for a wrong method on a known path', async () => {
    for (const endpoint of ENDPOINTS) {
      const served = ENDPOINTS.filter((other) => other.path === endpoint.path).map((other) => other.method);
      const wrong = ['PATCH', 'PUT', 'POST'].find((method) => !served.includes(method))!;
      const answer = await rawExchange(server.port, head(wrong, endpoint.path, { 'content-length': 0 }));
      assertError(answer, 405, 'METHOD_NOT_ALLOWED', `${wrong} ${endpoint.path}`);
      const allowed = (answer.headers.get('allow') ?? '').split(/,\s*/);
      assert.ok(
        allowed.includes(endpoint.method) && !allowed.includes(wrong),
        `Allow: ${answer.headers.get('allow')} for ${wrong} ${endpoint.path}`,
      );
    }
    assert.equal((await rawExchange(server.port, head('GET', '/api/v1/ingest'))).headers.get('allow'), 'POST');
    assert.equal((await rawExchange(server.port, head('POST', '/health', { 'content-length': 0 }))).headers.get('allow'), 'GET, HEAD');
    assert.equal(
      (await rawExchange(server.port, head('PUT', '/api/v1/query/jobs/qry_x', { 'content-length': 0 }))).headers.get('allow'),
      'DELETE, GET, HEAD',
    );
    const viaFetch = await request(`${server.api}/query/stream`);
    assertError(viaFetch, 405, 'METHOD_NOT_ALLOWED', 'GET /query/stream');
    assert.equal(viaFetch.headers.get('allow'), 'POST');
  });

  it('404 NOT_FOUND for unknown paths, under any method', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['POST', '/api/v1/ingest/nope'],
      ['DELETE', '/nope'],
      ['GET', '/api/v1/query/jobs/qry_x/other'],
    ]) {
      const answer = await rawExchange(server.port, head(method!, path!, { 'content-length': 0 }));
      assertError(answer, 404, 'NOT_FOUND', `${method} ${path}`);
      assert.equal(answer.headers.get('allow'), null);
    }
  });

  it('408 REQUEST_TIMEOUT for stalled headers and stalled bodies, within http.request_timeout', async () => {
    const cases = [
      ...ENDPOINTS.map((endpoint) => ({
        name: `headers of ${label(endpoint)}`,
        text: `${endpoint.method} ${endpoint.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`,
      })),
      ...WITH_BODY.map((endpoint) => ({
        name: `body of ${label(endpoint)}`,
        text: head(endpoint.method, endpoint.path, { 'content-type': 'application/json', 'content-length': 1000 }) + '[{"event":"stalled"',
      })),
      { name: 'a connection that sends nothing', text: '' },
    ];
    assert.equal(cases.length, ENDPOINTS.length + WITH_BODY.length + 1);
    const answers = await Promise.all(cases.map(({ text }) => rawExchange(server.port, text, { awaitClose: true, timeoutMs: 15_000 })));
    answers.forEach((answer, i) => {
      const name = cases[i]!.name;
      assertClosingError(answer, 408, 'REQUEST_TIMEOUT', name);
      assert.ok(
        answer.elapsedMs >= REQUEST_TIMEOUT_MS - 50 && answer.elapsedMs < REQUEST_TIMEOUT_MS + 2000,
        `${name} cut after ${answer.elapsedMs} ms`,
      );
    });
  });

  it('answers what node refuses before routing in the envelope: no Host, an unknown Expect, CONNECT, a malformed request line or URL', async () => {
    assertError(await rawExchange(server.port, 'GET /health HTTP/1.1\r\n\r\n'), 400, 'INVALID_REQUEST', 'no Host');
    // OPTIONS meets the CORS plugin's route, which keeps the error handler in force when it was added.
    assertError(await rawExchange(server.port, 'OPTIONS / HTTP/1.1\r\n\r\n'), 400, 'INVALID_REQUEST', 'OPTIONS without Host');
    const expect = await rawExchange(server.port, head('POST', '/api/v1/ingest', { expect: 'teapot', 'content-length': 2 }) + '[]', {
      awaitClose: true,
    });
    assertClosingError(expect, 417, 'EXPECTATION_FAILED', 'Expect: teapot');
    assertClosingError(
      await rawExchange(server.port, head('CONNECT', 'example.com:443'), { awaitClose: true }),
      405,
      'METHOD_NOT_ALLOWED',
      'CONNECT',
    );
    assertClosingError(
      await rawExchange(server.port, 'BREW /health HTTP/1.1\r\n\r\n', { awaitClose: true }),
      400,
      'INVALID_REQUEST',
      'unknown method',
    );
    assertClosingError(
      await rawExchange(server.port, 'GET /health HTTP/9.9\r\n\r\n', { awaitClose: true }),
      400,
      'INVALID_REQUEST',
      'bad version',
    );
    const both = head('POST', '/api/v1/ingest', { 'content-length': 2, 'transfer-encoding': 'chunked' }) + '0\r\n\r\n';
    assertClosingError(await rawExchange(server.port, both, { awaitClose: true }), 400, 'INVALID_REQUEST', 'Content-Length and chunked');
    assertError(await rawExchange(server.port, head('GET', '/api/v1/query/jobs/%zz')), 400, 'INVALID_REQUEST', 'bad percent-encoding');
    // The server is still answering.
    assert.equal((await request(`${server.url}/health`)).status, 200);
  });

  it('property: whatever bytes arrive as a request, every error answer is the envelope', async () => {
    const token = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'HEAD', 'PUT', 'OPTIONS', 'FOO', 'get', '');
    const target = fc.oneof(
      fc.constantFrom(...ENDPOINTS.map((endpoint) => endpoint.path), '/', '/nope', '*', 'http://x/health', '/api/v1/query?q=from%20main'),
      fc.string({ maxLength: 30 }).map((text) => `/${text}`),
    );
    const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/1.1', 'HTTP/2.0', 'HTTP/1', '');
    const header = fc.oneof(
      fc.constantFrom(
        'Host: x',
        'Content-Length: 5',
        'Content-Length: -1',
        'Content-Length: 1, 2',
        'Transfer-Encoding: chunked',
        'Transfer-Encoding: gzip',
        'Content-Type: application/json',
        'Content-Encoding: br',
        'Expect: 100-continue',
        'Connection: close',
        ': empty',
        'Bad Header: x',
      ),
      fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 })).map(([name, value]) => `${name}: ${value}`),
    );
    const body = fc.oneof(fc.constantFrom('', '{}', '[{"event":"x"}]', '5\r\nhello\r\n0\r\n\r\n', 'zz\r\n'), fc.string({ maxLength: 40 }));
    const requestText = fc
      .tuple(token, target, version, fc.array(header, { maxLength: 5 }), body, fc.constantFrom('\r\n', '\n', '\r'))
      .map(
        ([method, path, http, headers, content, eol]) =>
          `${method} ${path} ${http}${eol}${headers.map((line) => `${line}${eol}`).join('')}${eol}${content}`,
      );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(requestText, async (text) => {
        let answer: RawAnswer;
        try {
          answer = await rawExchange(server.port, text, { halfClose: true, timeoutMs: 5000 });
        } catch (error) {
          // Only a request with nothing to answer (no request line at all) may go unanswered, or
          // one whose route waits on I/O before it answers: node drops a request whose client
          // half-closed once the FIN arrives (http.Server's httpAllowHalfOpen is off).
          const target = /^\S* (\S*)/.exec(text)?.[1]?.split('?')[0] ?? '';
          assert.ok(
            text.trim() === '' || ROUTES_WAITING_ON_IO.has(target),
            `no answer to ${JSON.stringify(text)}: ${(error as Error).message}`,
          );
          return;
        }
        answered++;
        if (answer.status < 400 || text.startsWith('HEAD ')) return;
        const code: unknown = answer.body?.error?.code;
        assert.ok(typeof code === 'string' && /^[A-Z_]+$/.test(code), `an error code in ${answer.text} for ${JSON.stringify(text)}`);
        assertError(answer, answer.status, code, JSON.stringify(text));
      }),
      { numRuns: 150 },
    );
    assert.ok(answered > 100, `${answered} of 150 requests were answered`);
    assert.equal((await request(`${server.url}/health`)).status, 200);
  });
});
