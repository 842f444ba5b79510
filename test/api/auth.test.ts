/**
 * Authentication against the real server: key endpoints 404 with auth off; with auth on, the
 * root token printed once, every row of the privilege table for a key of each scope, the error
 * table (401 AUTH_REQUIRED, 401 INVALID_TOKEN, 403 FORBIDDEN, 404 NOT_FOUND), the three header
 * forms and the event-collector scheme, the key list, expiry, revocation and root rotation taking
 * effect on the next request, and a root token given by TRAWL_ROOT_TOKEN or auth.root_token.
 */
import { strict as assert } from 'assert';
import { assertError, dispose, post, waitUntil, type Answer } from '../helpers/api';
import { bearer, makeKey, printedRootToken, tokenParts, type MadeKey } from '../helpers/auth';
import { postJson, request, TestServer } from '../helpers/server';

const SCOPES = ['ingest', 'query', 'admin', 'full', 'root'] as const;
type Scope = (typeof SCOPES)[number];
type Need = 'ingest' | 'query' | 'admin' | 'root';

/** The hierarchy docs/api.md states: admin also reads, full does all but root's, root everything. */
const GRANTS: Record<Scope, readonly Need[]> = {
  ingest: ['ingest'],
  query: ['query'],
  admin: ['admin', 'query'],
  full: ['ingest', 'query', 'admin'],
  root: ['ingest', 'query', 'admin', 'root'],
};

interface Sample {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  need: Need;
}

const json = (value: unknown) => ({ body: JSON.stringify(value), contentType: 'application/json' });
const EVENTS = json([{ event: 'auth sample', fields: { tag: 'matrix' } }]);

/** One request per endpoint family; bodies a permitted caller may send (some are refused later, by validation). */
const SAMPLES: Sample[] = [
  // The rows docs/api.md states.
  { method: 'DELETE', path: '/cache', need: 'admin' },
  { method: 'GET', path: '/config', need: 'admin' },
  { method: 'DELETE', path: '/query/jobs/job-unknown', need: 'admin' },
  { method: 'PATCH', path: '/config', ...json({ log_level: 'info' }), need: 'root' },
  { method: 'GET', path: '/auth/keys', need: 'root' },
  { method: 'POST', path: '/auth/keys', ...json({}), need: 'root' },
  { method: 'DELETE', path: '/auth/keys/key_unknown', need: 'root' },
  { method: 'POST', path: '/query', ...json({ q: 'from main | stats count()' }), need: 'query' },
  { method: 'GET', path: '/query?q=from%20main', need: 'query' },
  { method: 'POST', path: '/query/stream', ...json({ q: 'from main' }), need: 'query' },
  { method: 'GET', path: '/query/explain?q=from%20main', need: 'query' },
  { method: 'GET', path: '/query/jobs', need: 'query' },
  { method: 'POST', path: '/ingest', ...EVENTS, need: 'ingest' },
  { method: 'POST', path: '/ingest/raw', body: 'a raw line\n', need: 'ingest' },
  { method: 'POST', path: '/ingest/hec', ...json({ event: 'collector line' }), need: 'ingest' },
  {
    method: 'POST',
    path: '/ingest/bulk',
    body: '{"index":{"_index":"m"}}\n{"message":"b"}\n',
    contentType: 'application/x-ndjson',
    need: 'ingest',
  },
  {
    method: 'POST',
    path: '/es/_bulk',
    body: '{"index":{"_index":"m"}}\n{"message":"e"}\n',
    contentType: 'application/x-ndjson',
    need: 'ingest',
  },
  { method: 'GET', path: '/es', need: 'ingest' },
  { method: 'POST', path: '/otlp/v1/logs', ...json({ resourceLogs: [] }), need: 'ingest' },
  // The scopes chosen for the other endpoints.
  { method: 'GET', path: '/histogram?q=from%20main', need: 'query' },
  { method: 'GET', path: '/queries', need: 'query' },
  { method: 'POST', path: '/queries', ...json({}), need: 'admin' },
  { method: 'GET', path: '/dashboards', need: 'query' },
  { method: 'DELETE', path: '/dashboards/dsh_unknown', need: 'admin' },
  { method: 'GET', path: '/alerts', need: 'query' },
  { method: 'POST', path: '/alerts', ...json({}), need: 'admin' },
  { method: 'GET', path: '/status', need: 'query' },
  { method: 'GET', path: '/stats', need: 'query' },
  { method: 'GET', path: '/metrics', need: 'query' },
  { method: 'GET', path: '/cache/stats', need: 'query' },
  { method: 'GET', path: '/compaction/history', need: 'query' },
  { method: 'GET', path: '/cluster/status', need: 'query' },
  { method: 'GET', path: '/audit', need: 'admin' },
];

function send(api: string, sample: Sample, headers: Record<string, string>): Promise<Answer> {
  const withType = sample.contentType === undefined ? headers : { ...headers, 'content-type': sample.contentType };
  return request(`${api}${sample.path}`, {
    method: sample.method,
    body: sample.body === undefined ? undefined : Buffer.from(sample.body),
    headers: withType,
  });
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const apiKey = (id: string, secret: string) => ({ authorization: `ApiKey ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

describe('api: authentication', function () {
  this.timeout(120_000);

  describe('auth off (the default)', () => {
    let server: TestServer;

    before(async () => {
      server = await TestServer.start();
    });

    after(async () => {
      await dispose(server);
    });

    it('has no key endpoints (404) and asks no token anywhere', async () => {
      assert.doesNotMatch(server.log, /root token:/);
      assertError(await request(`${server.api}/auth/keys`), 404, 'NOT_FOUND', 'GET /auth/keys');
      assertError(await postJson(`${server.api}/auth/keys`, { name: 'x' }), 404, 'NOT_FOUND', 'POST /auth/keys');
      assertError(await request(`${server.api}/auth/keys/key_x`, { method: 'DELETE' }), 404, 'NOT_FOUND', 'DELETE /auth/keys/{id}');
      assertError(await request(`${server.api}/auth/rotate-root`, { method: 'POST' }), 404, 'NOT_FOUND', 'POST /auth/rotate-root');
      assert.equal((await request(`${server.api}/status`)).status, 200);
      // A header is ignored, whatever it holds.
      assert.equal((await request(`${server.api}/status`, { headers: bearer('not-a-token') })).status, 200);
    });
  });

  describe('auth on, generated root token', () => {
    let server: TestServer;
    let root: string;
    const keys = {} as Record<Exclude<Scope, 'root'>, MadeKey>;

    before(async () => {
      server = await TestServer.start({ set: { 'auth.enabled': true } });
      root = printedRootToken(server.log);
      for (const scope of ['ingest', 'query', 'admin', 'full'] as const) {
        keys[scope] = await makeKey(server.api, root, { name: `${scope} key`, scope, description: `the ${scope} test key` });
      }
    });

    after(async () => {
      await dispose(server);
    });

    const tokenOf = (scope: Scope): string => (scope === 'root' ? root : keys[scope].token);

    it('prints the generated root token once, in the trawl format; /health and /metrics stay open', async () => {
      tokenParts(root);
      for (const headers of [{}, bearer('wrong')]) {
        const health = await request(`${server.url}/health`, { headers });
        assert.equal(health.status, 200, health.text);
        assert.equal(health.body.data.status, 'healthy');
        const metrics = await request(`${server.url}/metrics`, { headers });
        assert.equal(metrics.status, 200);
        assert.match(metrics.text, /^# HELP /m);
      }
    });

    it('every endpoint: 401 AUTH_REQUIRED without a token, 403 FORBIDDEN for a scope without the privilege, served otherwise', async () => {
      for (const sample of SAMPLES) {
        const what = `${sample.method} ${sample.path}`;
        const anonymous = await send(server.api, sample, {});
        assertError(anonymous, 401, 'AUTH_REQUIRED', `${what} without a token`);
        assert.match(anonymous.headers.get('www-authenticate') ?? '', /Bearer/, `${what}: the challenge`);
        for (const scope of SCOPES) {
          const answer = await send(server.api, sample, bearer(tokenOf(scope)));
          if (GRANTS[scope].includes(sample.need)) {
            assert.ok(
              ![401, 403].includes(answer.status),
              `${what} with a ${scope} key is served: ${answer.status} ${answer.text.slice(0, 200)}`,
            );
            assert.ok(answer.status < 500, `${what} with a ${scope} key: ${answer.status} ${answer.text.slice(0, 200)}`);
          } else {
            assertError(answer, 403, 'FORBIDDEN', `${what} with a ${scope} key`);
            assert.ok(answer.body.error.message.includes(keys[scope as Exclude<Scope, 'root'>].id), `names the key: ${answer.text}`);
          }
        }
      }
    });

    it('answers what the permitted calls ask: the events ingested are there, the admin rows act', async () => {
      const ingested = await postJson(
        `${server.api}/ingest`,
        [{ event: 'counted', fields: { tag: 'count-me' } }],
        bearer(keys.ingest.token),
      );
      assert.equal(ingested.status, 200, ingested.text);
      const counted = await postJson(
        `${server.api}/query`,
        { q: 'from * | where tag = "count-me" | stats count() as n' },
        bearer(keys.query.token),
      );
      assert.equal(counted.status, 200, counted.text);
      assert.deepEqual(counted.body.data.rows, [[1]]);
      const patched = await request(`${server.api}/config`, {
        method: 'PATCH',
        body: JSON.stringify({ log_level: 'debug' }),
        headers: { 'content-type': 'application/json', ...bearer(root) },
      });
      assert.equal(patched.status, 200, patched.text);
      const config = await request(`${server.api}/config`, { headers: bearer(keys.admin.token) });
      assert.equal(config.body.data.log_level, 'debug');
    });

    it('error table: INVALID_TOKEN for a wrong token or an unreadable header, 404 for an unknown key or path (only to a caller with a key)', async () => {
      const cases: [string, Record<string, string>][] = [
        ['a wrong token', bearer('trawl_nothing')],
        ['a token of the format naming no key', bearer(`trawl_key_gone_${'A'.repeat(43)}`)],
        ['a known key id with a wrong secret', bearer(`trawl_${keys.full.id}_${'B'.repeat(43)}`)],
        ['an unknown scheme', { authorization: `Digest ${keys.full.token}` }],
        ['ApiKey that is not base64 of id:secret', { authorization: 'ApiKey %%%' }],
        ['Basic without a password', { authorization: `Basic ${Buffer.from('user').toString('base64')}` }],
        ['the collector scheme off the collector path', { authorization: `Splunk ${keys.full.token}` }],
      ];
      for (const [what, headers] of cases) {
        const answer = await request(`${server.api}/status`, { headers });
        assertError(answer, 401, 'INVALID_TOKEN', what);
        assert.match(answer.headers.get('www-authenticate') ?? '', /Bearer/, what);
      }
      assertError(await request(`${server.api}/no/such/path`), 401, 'AUTH_REQUIRED', 'unknown path without a key');
      assertError(await request(`${server.api}/no/such/path`, { headers: bearer(keys.ingest.token) }), 404, 'NOT_FOUND', 'unknown path');
      const unknownKey = await request(`${server.api}/auth/keys/key_unknown`, { method: 'DELETE', headers: bearer(root) });
      assertError(unknownKey, 404, 'NOT_FOUND', 'unknown key id');
      // The Elasticsearch-compatible paths answer in Elasticsearch's shape too.
      const es = await request(`${server.api}/es/_bulk`, {
        method: 'POST',
        body: '{}\n',
        headers: { 'content-type': 'application/x-ndjson' },
      });
      assertError(es, 401, 'AUTH_REQUIRED', 'es bulk');
      assert.equal(es.body.error.type, 'security_exception');
    });

    it('takes Bearer, ApiKey base64(id:secret) and Basic base64(user:token), and Splunk <token> on /ingest/hec', async () => {
      const { id, secret } = tokenParts(keys.full.token);
      const forms: [string, Record<string, string>][] = [
        ['Bearer', bearer(keys.full.token)],
        ['ApiKey base64(id:secret)', apiKey(id, secret)],
        ['ApiKey <token>', { authorization: `ApiKey ${keys.full.token}` }],
        ['ApiKey base64(id:token)', apiKey(id, keys.full.token)],
        ['Basic base64(user:token)', basic('any-user', keys.full.token)],
        ['Basic base64(id:secret)', basic(id, secret)],
        ['lower-case scheme', { authorization: `bearer ${keys.full.token}` }],
      ];
      for (const [what, headers] of forms) {
        const answer = await request(`${server.api}/status`, { headers });
        assert.equal(answer.status, 200, `${what}: ${answer.text}`);
      }
      const collector = (token: string) =>
        post(`${server.api}/ingest/hec`, JSON.stringify({ event: 'via collector', fields: { tag: 'hec-auth' } }), {
          'content-type': 'application/json',
          authorization: `Splunk ${token}`,
        });
      assert.equal((await collector(keys.ingest.token)).status, 200);
      assertError(await collector(keys.query.token), 403, 'FORBIDDEN', 'a query key on the collector');
      assertError(await collector('wrong'), 401, 'INVALID_TOKEN', 'a wrong collector token');
    });

    it('lists keys without tokens or hashes: id, name, prefix, scope, description, times, last use', async () => {
      const before = Date.now();
      assert.equal((await request(`${server.api}/status`, { headers: bearer(keys.query.token) })).status, 200);
      const answer = await request(`${server.api}/auth/keys`, { headers: bearer(root) });
      assert.equal(answer.status, 200, answer.text);
      const listed = answer.body.data.keys as Record<string, any>[];
      assert.deepEqual(
        listed.map((key) => key.scope),
        ['root', 'ingest', 'query', 'admin', 'full'],
        'oldest first',
      );
      for (const key of listed) {
        assert.deepEqual(Object.keys(key), ['id', 'name', 'prefix', 'scope', 'description', 'created_at', 'expires_at', 'last_used_at']);
      }
      assert.ok(!answer.text.includes(tokenParts(root).secret), 'no secret in the list');
      assert.ok(!answer.text.includes('scrypt'), 'no hash in the list');
      const query = listed.find((key) => key.id === keys.query.id)!;
      assert.equal(query.name, 'query key');
      assert.equal(query.description, 'the query test key');
      assert.equal(query.expires_at, null);
      assert.ok(keys.query.token.startsWith(query.prefix), `the prefix ${query.prefix} starts the token`);
      assert.ok(query.prefix.length < keys.query.token.length - 32, 'the prefix shows little of the secret');
      assert.ok(Date.parse(query.last_used_at) >= before - 1000, `last_used_at ${query.last_used_at}`);
      assert.equal(keys.full.body.expires_at, null);
      assert.equal(keys.full.body.scope, 'full');
    });

    it('checks a new key: name required, scopes, expires_in; the default scope is full', async () => {
      const refused: [unknown, RegExp][] = [
        [{}, /name/],
        [{ name: 'x', scope: 'root' }, /scope/],
        [{ name: 'x', expires_in: 'soon' }, /expires_in/],
        [{ name: 'x', expires_in: '0s' }, /expires_in/],
        [{ name: 'x', expires_in: '1000000y' }, /expires_in/],
        [{ name: 'x', token: 'mine' }, /token/],
      ];
      for (const [body, named] of refused) {
        const answer = await postJson(`${server.api}/auth/keys`, body, bearer(root));
        assertError(answer, 400, 'VALIDATION_ERROR', JSON.stringify(body));
        assert.match(answer.body.error.message, named);
      }
      const made = await makeKey(server.api, root, { name: 'defaults', expires_in: '30d' });
      assert.equal(made.body.scope, 'full');
      const days = (Date.parse(made.body.expires_at) - Date.parse(made.body.created_at)) / 86_400_000;
      assert.ok(Math.abs(days - 30) < 0.01, `expires 30 days after creation: ${made.body.expires_at}`);
      assert.equal((await request(`${server.api}/status`, { headers: bearer(made.token) })).status, 200);
    });

    it('an expired key fails; a revoked key fails on its next request; the last root key cannot be revoked, only rotated', async () => {
      const shortLived = await makeKey(server.api, root, { name: 'short', scope: 'query', expires_in: '2s' });
      assert.equal((await request(`${server.api}/status`, { headers: bearer(shortLived.token) })).status, 200);
      await waitUntil(async () => Date.now() >= Date.parse(shortLived.body.expires_at), 10_000, 'the expiry');
      assertError(await request(`${server.api}/status`, { headers: bearer(shortLived.token) }), 401, 'INVALID_TOKEN', 'expired');

      const revoked = await makeKey(server.api, root, { name: 'to revoke', scope: 'ingest' });
      assert.equal((await postJson(`${server.api}/ingest`, [{ event: 'x' }], bearer(revoked.token))).status, 200);
      const deleted = await request(`${server.api}/auth/keys/${revoked.id}`, { method: 'DELETE', headers: bearer(root) });
      assert.equal(deleted.status, 204, deleted.text);
      assertError(await postJson(`${server.api}/ingest`, [{ event: 'x' }], bearer(revoked.token)), 401, 'INVALID_TOKEN', 'revoked');

      const rootId = tokenParts(root).id;
      const last = await request(`${server.api}/auth/keys/${rootId}`, { method: 'DELETE', headers: bearer(root) });
      assertError(last, 400, 'VALIDATION_ERROR', 'the last root key');
      assert.match(last.body.error.message, /last root key/);

      assertError(await request(`${server.api}/auth/rotate-root`, { method: 'POST', headers: bearer(keys.full.token) }), 403, 'FORBIDDEN');
      const rotated = await request(`${server.api}/auth/rotate-root`, { method: 'POST', headers: bearer(root) });
      assert.equal(rotated.status, 201, rotated.text);
      assert.equal(rotated.body.data.revoked_key_id, rootId);
      assert.equal(rotated.body.data.scope, 'root');
      const newRoot = rotated.body.data.token as string;
      assert.equal(tokenParts(newRoot).id, rotated.body.data.id);
      assertError(await request(`${server.api}/auth/keys`, { headers: bearer(root) }), 401, 'INVALID_TOKEN', 'the old root token');
      const list = await request(`${server.api}/auth/keys`, { headers: bearer(newRoot) });
      assert.equal(list.status, 200);
      assert.deepEqual(
        (list.body.data.keys as { scope: string; id: string }[]).filter((key) => key.scope === 'root').map((key) => key.id),
        [rotated.body.data.id],
      );
      // Other keys are untouched by the rotation.
      assert.equal((await request(`${server.api}/status`, { headers: bearer(keys.query.token) })).status, 200);
      root = newRoot;
    });

    it('keeps the keys across a restart and prints no second root token', async () => {
      await server.stop();
      server = await TestServer.start({ dataDir: server.dataDir, port: server.port, set: { 'auth.enabled': true } });
      assert.doesNotMatch(server.log, /root token:/);
      assert.equal((await request(`${server.api}/auth/keys`, { headers: bearer(root) })).status, 200);
      assert.equal((await request(`${server.api}/status`, { headers: bearer(keys.query.token) })).status, 200);
    });
  });

  describe('auth on, root token given', () => {
    let server: TestServer | undefined;

    afterEach(async () => {
      await dispose(server);
      server = undefined;
    });

    it('TRAWL_ROOT_TOKEN comes before auth.root_token; nothing is printed; GET /config hides the token', async () => {
      const fromEnv = 'operator-chosen root token from env';
      const fromConfig = 'operator-chosen root token from config';
      server = await TestServer.start({
        set: { 'auth.enabled': true, 'auth.root_token': fromConfig },
        env: { TRAWL_ROOT_TOKEN: fromEnv },
      });
      assert.doesNotMatch(server.log, /root token:/);
      const list = await request(`${server.api}/auth/keys`, { headers: bearer(fromEnv) });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        (list.body.data.keys as Record<string, unknown>[]).map((key) => [key.scope, key.prefix]),
        [['root', null]],
        'one root key; nothing of a chosen token is shown',
      );
      assertError(await request(`${server.api}/status`, { headers: bearer(fromConfig) }), 401, 'INVALID_TOKEN');
      const config = await request(`${server.api}/config`, { headers: bearer(fromEnv) });
      assert.equal(config.body.data.auth.root_token, '(hidden)');
      assert.ok(!config.text.includes(fromConfig));
      // Basic with the chosen token as password, as a shipper configured with user and password sends it.
      assert.equal((await request(`${server.api}/status`, { headers: basic('elastic', fromEnv) })).status, 200);
    });

    it('auth.root_token alone makes the root key', async () => {
      const token = 's3cret-root';
      server = await TestServer.start({ set: { 'auth.enabled': true, 'auth.root_token': token } });
      const made = await makeKey(server.api, token, { name: 'by config root', scope: 'query' });
      assert.equal((await request(`${server.api}/status`, { headers: bearer(made.token) })).status, 200);
    });
  });
});
