/**
 * `meta.warnings` through the real server: a bare word compared with a field (`where level =
 * error`) reads a field; when no event in range has that field, the answer says so and shows the
 * quoted form. A field that exists, a backtick name and a field made by `extend` get no warning.
 */
import { strict as assert } from 'assert';
import { dispose } from '../helpers/api';
import { postJson, TestServer } from '../helpers/server';

const EVENTS = [
  { event: 'disk full', host: 'a', time: 1_700_000_000, fields: { level: 'error', wanted: 'error' } },
  { event: 'disk ok', host: 'a', time: 1_700_000_001, fields: { level: 'info', wanted: 'error' } },
  { event: 'link down', host: 'b', time: 1_700_000_002, fields: { level: 'error', wanted: 'info' } },
];

describe('api: query warnings', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await TestServer.start({ set: { retention: '3650d' } });
    const ingest = await postJson(`${server.api}/ingest`, EVENTS);
    assert.deepEqual(ingest.body, { data: { accepted: EVENTS.length, failed: 0 } });
  });

  after(async () => {
    await dispose(server);
  });

  async function run(q: string): Promise<{ events: unknown[]; warnings: unknown }> {
    const answer = await postJson(`${server.api}/query`, { q, from: '2023-01-01T00:00:00Z' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const body = answer.body as { data: { events: unknown[] }; meta: { warnings?: unknown } };
    return { events: body.data.events, warnings: body.meta.warnings };
  }

  it('warns of a bare word no event has as a field, with the quoted form', async () => {
    const answer = await run('from main | where level = error');
    assert.equal(answer.events.length, 0);
    assert.deepEqual(answer.warnings, [
      {
        code: 'BARE_WORD_FIELD',
        message: 'in `level = error`, error is read as a field name, and no event in range has a field error',
        hint: 'to compare with the text, quote it: level = "error"',
      },
    ]);
    const quoted = await run('from main | where level = "error"');
    assert.equal(quoted.events.length, 2);
    assert.equal(quoted.warnings, undefined);
  });

  it('warns for each bare word of an in list, and for !=', async () => {
    const answer = await run('from main | where level in (error, "info") and host != b');
    assert.deepEqual(
      (answer.warnings as { hint: string }[]).map((warning) => warning.hint),
      ['to compare with the text, quote it: level in (... "error" ...)', 'to compare with the text, quote it: host != "b"'],
    );
  });

  it('says nothing when the word is a field some event has, a backtick name, or made by extend', async () => {
    const existing = await run('from main | where level = wanted');
    assert.equal(existing.events.length, 1, 'the one event whose level equals its own wanted field');
    assert.equal(existing.warnings, undefined);
    assert.equal((await run('from main | where level = `error`')).warnings, undefined);
    const made = await run('from main | extend error = "error" | where level = error');
    assert.equal(made.events.length, 2);
    assert.equal(made.warnings, undefined);
  });

  it('looks only at the time range asked', async () => {
    const answer = await postJson(`${server.api}/query`, { q: 'from main | where level = wanted', from: '2024-01-01T00:00:00Z' });
    assert.equal(answer.status, 200);
    const warnings = (answer.body as { meta: { warnings?: { code: string }[] } }).meta.warnings;
    assert.deepEqual(
      warnings?.map((warning) => warning.code),
      ['BARE_WORD_FIELD'],
      'no event after 2024 has a field wanted',
    );
  });
});
