/**
 * Saved queries against the real server: create, list, read, replace, delete; the checks on the
 * way in (fields, query text, time bound, length), 404 for unknown ids, and persistence across a
 * restart of the process.
 */
import { strict as assert } from 'assert';
import { assertError, dispose, type Answer } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^sq_[A-Za-z0-9_-]+$/;

function putJson(url: string, value: unknown): Promise<Answer> {
  return request(url, { method: 'PUT', body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });
}

function assertSaved(answer: Answer, status: number, fields: Record<string, unknown>, context: string): Record<string, any> {
  assert.equal(answer.status, status, `${context}: ${answer.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(answer.body), ['data'], context);
  const saved = answer.body.data;
  assert.match(saved.id, ID, context);
  assert.match(saved.created_at, ISO_UTC, context);
  assert.match(saved.updated_at, ISO_UTC, context);
  assert.deepEqual(saved, { id: saved.id, ...fields, created_at: saved.created_at, updated_at: saved.updated_at }, context);
  return saved;
}

async function listed(api: string): Promise<Record<string, any>[]> {
  const answer = await request(`${api}/queries`);
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(Object.keys(answer.body.data), ['queries']);
  return answer.body.data.queries;
}

describe('api: saved queries', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;
  let api: string;

  beforeEach(async () => {
    server = await TestServer.start({ set: { 'query.max_query_length': 200 } });
    api = server.api;
  });

  afterEach(async () => {
    await dispose(server);
    server = undefined;
  });

  it('creates, lists, reads, replaces and deletes a saved query', async () => {
    assert.deepEqual(await listed(api), []);
    const fields = { name: '5xx by host', q: 'from main | where status >= 500 | stats count() by host', from: '-1h' };
    const created = assertSaved(await postJson(`${api}/queries`, fields), 201, fields, 'POST');
    assert.equal(created.updated_at, created.created_at, 'a new record was updated when it was created');
    const other = assertSaved(
      await postJson(`${api}/queries`, { name: 'everything', q: 'from *' }),
      201,
      { name: 'everything', q: 'from *' },
      'POST without from',
    );
    assert.notEqual(other.id, created.id);

    assert.deepEqual(await listed(api), [created, other]);
    assert.deepEqual((await request(`${api}/queries/${created.id}`)).body, { data: created });

    const replacement = { name: '5xx on web', q: 'from web | where status >= 500' };
    const replaced = assertSaved(await putJson(`${api}/queries/${created.id}`, replacement), 200, replacement, 'PUT');
    assert.equal(replaced.id, created.id);
    assert.equal(replaced.created_at, created.created_at, 'created_at kept');
    assert.ok(Date.parse(replaced.updated_at) > Date.parse(created.created_at), `updated_at refreshed: ${replaced.updated_at}`);
    assert.deepEqual((await request(`${api}/queries/${created.id}`)).body, { data: replaced }, 'the full replacement dropped from');

    const deleted = await request(`${api}/queries/${created.id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assertError(await request(`${api}/queries/${created.id}`), 404, 'NOT_FOUND', 'GET after DELETE');
    assert.deepEqual(await listed(api), [other]);
  });

  it('saves a query with $variables, which get their values when it runs', async () => {
    const now = Date.now() / 1000;
    const events = [
      { event: 'GET /a 200', host: 'web-1', time: now - 30, fields: { status: 200 } },
      { event: 'GET /b 503', host: 'web-2', time: now - 20, fields: { status: 503 } },
      { event: 'GET /c 500', host: 'web-2', time: now - 10, fields: { status: 500 } },
    ];
    assert.equal((await postJson(`${api}/ingest`, events)).body.data.accepted, events.length);
    const fields = { name: 'errors of a host', q: 'from main | where host = $host | stats count() by status', from: '-1h' };
    const saved = assertSaved(await postJson(`${api}/queries`, fields), 201, fields, 'POST with a variable');
    const read = (await request(`${api}/queries/${saved.id}`)).body.data;
    const ran = await postJson(`${api}/query`, { q: read.q, from: read.from, variables: { host: 'web-2' } });
    assert.equal(ran.status, 200, ran.text);
    assert.deepEqual(ran.body.data.rows.sort(), [
      [500, 1],
      [503, 1],
    ]);
  });

  it('refuses bad fields with 400 VALIDATION_ERROR naming the field, on POST and PUT', async () => {
    const target = assertSaved(
      await postJson(`${api}/queries`, { name: 'target', q: 'from main' }),
      201,
      { name: 'target', q: 'from main' },
      'POST',
    );
    const cases: [unknown, RegExp][] = [
      [{ q: 'from main' }, /^name is required$/],
      [{ name: 'no query' }, /^q is required$/],
      [{ name: '', q: 'from main' }, /^name must be a non-empty string/],
      [{ name: '   ', q: 'from main' }, /^name must be a non-empty string/],
      [{ name: null, q: 'from main' }, /^name must be a non-empty string/],
      [{ name: { first: 'a' }, q: 'from main' }, /^name must be a non-empty string/],
      [{ name: 'blank', q: ' ' }, /^q must be a non-empty string: the query text/],
      [{ name: 'list', q: ['from main', 'from web'] }, /^q must be a non-empty string/],
      [{ name: 'range', q: 'from main', to: 'now' }, /^field "to" is not accepted \(accepted: name, q, from\)$/],
      [{ name: 'id', q: 'from main', id: 'sq_mine' }, /^id is set by the server: leave it out of the request$/],
      [{ name: 'time', q: 'from main', created_at: '2024-01-01T00:00:00Z' }, /^created_at is set by the server/],
      [{ name: 'time', q: 'from main', updated_at: null }, /^updated_at is set by the server/],
      [{ name: 'from', q: 'from main', from: 'yesterday' }, /^from: "yesterday" is not a time/],
      [{ name: 'from', q: 'from main', from: '' }, /^from is empty$/],
      [{ name: 'from', q: 'from main', from: { relative: '-1h' } }, /^from must be a string/],
      [['from main'], /must be a JSON object/],
    ];
    for (const [body, message] of cases) {
      for (const [method, answer] of [
        ['POST', await postJson(`${api}/queries`, body)],
        ['PUT', await putJson(`${api}/queries/${target.id}`, body)],
      ] as const) {
        assertError(answer, 400, 'VALIDATION_ERROR', `${method} ${JSON.stringify(body)}`);
        assert.match(answer.body.error.message, message, `${method} ${JSON.stringify(body)}`);
      }
    }
    assertError(await request(`${api}/queries`, { method: 'POST' }), 400, 'VALIDATION_ERROR', 'no body');
    assertError(
      await request(`${api}/queries`, { method: 'POST', body: '{"name":', headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_JSON',
      'bad JSON',
    );
    const listWithParameter = await request(`${api}/queries?limit=5`);
    assertError(listWithParameter, 400, 'VALIDATION_ERROR', 'GET /queries?limit=5');
    assert.match(listWithParameter.body.error.message, /parameter "limit" is not accepted/);
    assert.deepEqual(await listed(api), [target], 'nothing refused was kept or changed');
  });

  it('refuses query text that does not parse with 400 INVALID_QUERY and the parse error, and text over query.max_query_length', async () => {
    const target = assertSaved(
      await postJson(`${api}/queries`, { name: 'target', q: 'from main' }),
      201,
      { name: 'target', q: 'from main' },
      'POST',
    );
    for (const [method, send] of [
      ['POST', (body: unknown) => postJson(`${api}/queries`, body)],
      ['PUT', (body: unknown) => putJson(`${api}/queries/${target.id}`, body)],
    ] as const) {
      const legacy = await send({ name: 'legacy', q: 'from main | eval x = 1' });
      assertError(legacy, 400, 'INVALID_QUERY', `${method} a legacy stage`);
      assert.deepEqual(legacy.body.error, {
        code: 'INVALID_QUERY',
        message: '"eval" is a legacy stage; use: extend x = 1',
        parse_code: 'E003',
        line: 1,
        column: 13,
        suggestion: 'extend x = 1',
      });
      const badRegex = await send({ name: 'regex', q: 'from main | where msg =~ "(a"' });
      assertError(badRegex, 400, 'INVALID_QUERY', `${method} a bad regex`);
      assert.equal(badRegex.body.error.parse_code, 'E008');
      const noFrom = await send({ name: 'no from', q: 'where status >= 500' });
      assertError(noFrom, 400, 'INVALID_QUERY', `${method} without from`);
      assert.equal(noFrom.body.error.parse_code, 'E006');
      const long = await send({ name: 'long', q: `from main | search "${'x'.repeat(200)}"` });
      assertError(long, 400, 'QUERY_TOO_LARGE', `${method} a long query`);
      assert.match(long.body.error.message, /query\.max_query_length is 200/);
    }
    assert.deepEqual(await listed(api), [target]);
  });

  it('answers 404 NOT_FOUND for an unknown id on GET, PUT and DELETE', async () => {
    const valid = { name: 'valid', q: 'from main' };
    const answers: [string, Answer][] = [
      ['GET', await request(`${api}/queries/sq_doesnotexist`)],
      ['PUT', await putJson(`${api}/queries/sq_doesnotexist`, valid)],
      ['DELETE', await request(`${api}/queries/sq_doesnotexist`, { method: 'DELETE' })],
      ['GET without the prefix', await request(`${api}/queries/doesnotexist`)],
    ];
    for (const [context, answer] of answers) {
      assertError(answer, 404, 'NOT_FOUND', context);
      assert.match(answer.body.error.message, /no saved query with id "(sq_)?doesnotexist"/, context);
    }
    assert.deepEqual(await listed(api), [], 'a PUT of an unknown id creates nothing');
  });

  it('keeps saved queries across a restart of the server, even after a kill', async () => {
    const a = assertSaved(
      await postJson(`${api}/queries`, { name: 'a', q: 'from main', from: '-15m' }),
      201,
      { name: 'a', q: 'from main', from: '-15m' },
      'POST a',
    );
    const b = assertSaved(await postJson(`${api}/queries`, { name: 'b', q: 'from web' }), 201, { name: 'b', q: 'from web' }, 'POST b');
    const c = assertSaved(await postJson(`${api}/queries`, { name: 'c', q: 'from db' }), 201, { name: 'c', q: 'from db' }, 'POST c');
    const b2 = assertSaved(
      await putJson(`${api}/queries/${b.id}`, { name: 'b2', q: 'from web | head 5' }),
      200,
      { name: 'b2', q: 'from web | head 5' },
      'PUT b',
    );
    assert.equal((await request(`${api}/queries/${c.id}`, { method: 'DELETE' })).status, 204);
    const expected = [a, b2];

    const dataDir = server!.dataDir;
    await server!.kill();
    server = await TestServer.start({ dataDir });
    assert.deepEqual(await listed(server.api), expected, 'after a kill');

    await server.stop();
    server = await TestServer.start({ dataDir });
    assert.deepEqual(await listed(server.api), expected, 'after a stop');
    assertError(await request(`${server.api}/queries/${c.id}`), 404, 'NOT_FOUND', 'the deleted one stays deleted');
    const d = assertSaved(
      await postJson(`${server.api}/queries`, { name: 'd', q: 'from main' }),
      201,
      { name: 'd', q: 'from main' },
      'POST after restarts',
    );
    assert.deepEqual(await listed(server.api), [...expected, d]);
  });
});
