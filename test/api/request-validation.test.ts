/**
 * The JSON schemas of the query and ops routes: a bad parameter or body field is 400
 * VALIDATION_ERROR with a message naming it, an unknown one is refused (not ignored), and the
 * the forms of docs/api.md still pass (numbers as strings, null as absent, `q` or `query`).
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { assertError, dispose, patchConfig } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const QUERY_FIELDS = [
  'q',
  'query',
  'from',
  'earliest',
  'to',
  'latest',
  'language',
  'limit',
  'offset',
  'wait',
  'profile',
  'format',
  'variables',
];
const EVENTS = Array.from({ length: 5 }, (_, i) => ({ event: `validation event ${i}`, time: Date.now() / 1000 - 60 + i }));

function assertNames(answer: Awaited<ReturnType<typeof request>>, name: string, context: string): void {
  assertError(answer, 400, 'VALIDATION_ERROR', context);
  assert.ok(answer.body.error.message.includes(name), `the message names ${name}: ${answer.body.error.message} (${context})`);
}

describe('api: request validation by schema', function () {
  this.timeout(60_000);
  let server: TestServer;
  let api: string;

  before(async () => {
    server = await TestServer.start();
    api = server.api;
    assert.equal((await postJson(`${api}/ingest`, EVENTS)).body.data.accepted, EVENTS.length);
  });

  after(async () => {
    await dispose(server);
  });

  it('refuses unknown fields and parameters, naming them, on every query route and the ops routes with input', async () => {
    const cases: [string, Promise<Awaited<ReturnType<typeof request>>>][] = [
      ['POST /query', postJson(`${api}/query`, { q: 'from main', limt: 5 })],
      ['POST /query/stream', postJson(`${api}/query/stream`, { q: 'from main', limt: 5 })],
      ['GET /query', request(`${api}/query?q=from%20main&limt=5`)],
      ['GET /query/explain', request(`${api}/query/explain?q=from%20main&limt=5`)],
      ['GET /query/jobs', request(`${api}/query/jobs?limt=5`)],
      ['GET /compaction/history', request(`${api}/compaction/history?limt=5`)],
    ];
    for (const [context, answer] of cases) assertNames(await answer, '"limt"', context);
    const patched = await patchConfig(server, { http: { request_timeout: '30s' }, cluster: { seeds: [] } });
    assertNames(patched, 'cluster', 'PATCH /config');
    assert.match(patched.body.error.message, /allowed: retention, log_level, listen, query, ingest, storage, http, tail/);
  });

  it('names the field of a bad value in POST /query, GET /query and POST /query/stream', async () => {
    const bodies: [Record<string, unknown>, string][] = [
      [{ q: 'from main', limit: -1 }, 'limit'],
      [{ q: 'from main', limit: 'abc' }, 'limit'],
      [{ q: 'from main', offset: 1.5 }, 'offset'],
      [{ q: 'from main', wait: -1 }, 'wait'],
      [{ q: 'from main', profile: 'everything' }, 'profile'],
      [{ q: 'from main', format: 'csv' }, 'format'],
      [{ q: 'from main', language: 'spl2' }, 'language'],
      [{ q: 'from main', variables: 'x' }, 'variables'],
      [{ q: { text: 'from main' } }, 'q'],
      [{ q: 'from main', from: ['-1h', '-2h'] }, 'from'],
      [{}, 'q'],
    ];
    for (const [body, name] of bodies) assertNames(await postJson(`${api}/query`, body), name, `POST /query ${JSON.stringify(body)}`);
    for (const [query, name] of [
      ['q=from%20main&limit=abc', 'limit'],
      ['q=a&q=b', 'q'],
      ['q=from%20main&format=ndjson', 'format'],
      ['q=from%20main&variables=x', 'variables'],
    ]) {
      assertNames(await request(`${api}/query?${query}`), name!, `GET /query?${query}`);
    }
    for (const field of ['limit', 'offset', 'wait', 'profile', 'format']) {
      const answer = await postJson(`${api}/query/stream`, { q: 'from main', [field]: null });
      assertNames(answer, field, `POST /query/stream with ${field}: null`);
      assert.match(answer.body.error.message, /cannot be used with \/query\/stream/);
    }
    assertNames(
      await request(`${api}/query/stream`, { method: 'POST', body: '[]', headers: { 'content-type': 'application/json' } }),
      'JSON object',
      'a JSON array',
    );
    assertNames(await request(`${api}/query`, { method: 'POST' }), 'JSON object', 'no body');
    assertNames(await request(`${api}/compaction/history?limit=0`), 'limit', 'limit=0');
    assertNames(await request(`${api}/compaction/history?limit=abc`), 'limit', 'limit=abc');
    assertNames(await request(`${api}/query/jobs?status=finished`), 'status', 'status=finished');
    assertNames(await patchConfig(server, ['retention']), 'JSON object', 'PATCH /config with an array');
  });

  it('accepts the forms docs/api.md lists: numbers as strings, null as absent, aliases', async () => {
    const asStrings = await postJson(`${api}/query`, {
      query: 'from main',
      limit: '2',
      offset: '1',
      wait: '5',
      earliest: '-1h',
      latest: 'now',
    });
    assert.equal(asStrings.status, 200, asStrings.text);
    assert.equal(asStrings.body.data.events.length, 2);
    assert.equal(asStrings.body.data.total, EVENTS.length);
    const nulls = await postJson(`${api}/query`, {
      q: 'from main | stats count()',
      from: null,
      to: null,
      limit: null,
      wait: null,
      profile: null,
      variables: null,
      format: null,
      language: null,
    });
    assert.equal(nulls.status, 200, nulls.text);
    assert.deepEqual(nulls.body.data.rows, [[EVENTS.length]]);
    const get = await request(`${api}/query?q=from%20main&limit=3&format=&language=native`);
    assert.equal(get.status, 200, get.text);
    assert.equal(get.body.data.events.length, 3);
    const stream = await postJson(`${api}/query/stream`, { query: 'from main | stats count()', variables: null, language: 'native' });
    assert.equal(stream.status, 200, stream.text);
    assert.deepEqual(JSON.parse(stream.text.split('\n')[0]!), { count: EVENTS.length });
    const jobs = await request(`${api}/query/jobs?status=`);
    assert.equal(jobs.status, 200, jobs.text);
    const history = await request(`${api}/compaction/history?limit=10&since=-1h`);
    assert.equal(history.status, 200, history.text);
  });

  it('property: any POST /query body is answered 200/202 or 400 in the envelope, never accepted with a field docs/api.md does not list', async () => {
    const known = fc.record(
      {
        q: fc.oneof(fc.constant('from main | stats count()'), fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null)),
        limit: fc.oneof(fc.integer({ min: -5, max: 50 }), fc.string({ maxLength: 3 }), fc.constant(null)),
        offset: fc.oneof(fc.nat(10), fc.double(), fc.constant(null)),
        format: fc.constantFrom('', 'json', 'csv', null),
        profile: fc.constantFrom('basic', 'full', 'trace', 'x', null),
        variables: fc.oneof(
          fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
          fc.string({ maxLength: 3 }),
        ),
        wait: fc.oneof(fc.constant(5), fc.constant(null), fc.integer({ min: -3, max: -1 })),
      },
      { requiredKeys: [] },
    );
    const extra = fc.option(
      fc.string({ minLength: 1, maxLength: 8 }).filter((name) => !QUERY_FIELDS.includes(name) && name !== '__proto__'),
      { nil: undefined },
    );
    let refusedExtra = 0;
    await fc.assert(
      fc.asyncProperty(known, extra, async (fields, unknown) => {
        const body: Record<string, unknown> = { ...fields };
        if (unknown !== undefined) body[unknown] = 1;
        const answer = await postJson(`${api}/query`, body);
        const context = JSON.stringify(body);
        if (answer.status === 200 || answer.status === 202) {
          assert.equal(unknown, undefined, `accepted an unknown field: ${context}`);
          return;
        }
        assert.equal(answer.status, 400, `${answer.status} ${answer.text} for ${context}`);
        assert.ok(['VALIDATION_ERROR', 'INVALID_QUERY', 'QUERY_TOO_LARGE'].includes(answer.body.error.code), answer.text);
        if (unknown !== undefined && answer.body.error.message.includes(JSON.stringify(unknown))) refusedExtra++;
      }),
      { numRuns: 120 },
    );
    assert.ok(refusedExtra > 0, 'some unknown fields were refused by name');
  });
});
