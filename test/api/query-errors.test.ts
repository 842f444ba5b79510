/**
 * Query errors through the real server: the INVALID_QUERY envelope of POST /query and the errors[]
 * of GET /query/explain carry the same fields.
 */
import { strict as assert } from 'assert';
import { dispose } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

const ERROR_FIELDS = ['column', 'line', 'message', 'parse_code', 'suggestion'];

describe('api: query errors', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await TestServer.start();
  });

  after(async () => {
    await dispose(server);
  });

  const query = (q: string) => postJson(`${server.api}/query`, { q });
  const explain = (q: string) => request(`${server.api}/query/explain?q=${encodeURIComponent(q)}`);

  it('GET /query/explain lists each error with the fields of the INVALID_QUERY error object', async () => {
    const cases: [string, number][] = [
      ['from main | wher x', 1],
      ['from main | where x = "abc', 1],
      ['from main | wher x | where lowr(y) = 1 | head 0', 3],
    ];
    for (const [q, count] of cases) {
      const answer = await query(q);
      assert.equal(answer.status, 400, answer.text);
      const { code, ...fields } = answer.body.error;
      assert.equal(code, 'INVALID_QUERY');
      const explained = await explain(q);
      assert.equal(explained.status, 200, explained.text);
      assert.equal(explained.body.data.is_valid, false);
      const errors = explained.body.data.errors as Record<string, unknown>[];
      assert.equal(errors.length, count, explained.text);
      for (const error of errors) assert.deepEqual(Object.keys(error).sort(), ERROR_FIELDS, explained.text);
      assert.deepEqual(errors[0], fields, `${q}: explain's first error is the query's error`);
    }
  });
});
