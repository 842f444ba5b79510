/**
 * The audit log against the real server with auth on: each administrative action (keys made,
 * revoked and rotated, a config patch, saved queries, dashboards and alerts created, replaced and
 * deleted, the result cache cleared, a query job canceled, an alert's channels tested, a SIGHUP
 * reload) and each refused credential (401, 403) recorded once, with the actor's key id and name,
 * the client address, the node and the target; an invalid request not recorded; no token, secret
 * or webhook password anywhere in `GET /audit`; the bound on refusals per client address; the
 * internal index out of `from *`, `/fields`, `/sources` and `/stats`, refused to ingest and to
 * queries; `GET /audit` refused to a query key.
 */
import { strict as assert } from 'assert';
import { randomBytes } from 'crypto';
import http from 'http';
import { assertError, dispose, waitUntil, type Answer } from '../helpers/api';
import { bearer, makeKey, tokenParts, type MadeKey } from '../helpers/auth';
import { postJson, request, TestServer } from '../helpers/server';

const NODE_ID = 'audit-node';
const REFUSALS_PER_WINDOW = 4;

interface Entry {
  time: string;
  action: string;
  outcome: string;
  actor_key_id: string | null;
  actor_key_name: string | null;
  client_ip: string | null;
  node: string;
  method: string | null;
  path: string | null;
  target: string | null;
  target_name: string | null;
  reason: string | null;
  scheme: string | null;
  suppressed: number | null;
}

function send(url: string, method: string, value: unknown, token: string): Promise<Answer> {
  return request(url, {
    method,
    body: value === undefined ? undefined : JSON.stringify(value),
    headers: { ...(value === undefined ? {} : { 'content-type': 'application/json' }), ...bearer(token) },
  });
}

/** A GET sent from another loopback address (Linux routes all of 127.0.0.0/8 to the loopback interface). */
function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { localAddress, headers, agent: false }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(answer.statusCode!));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('api: audit log', function () {
  this.timeout(120_000);
  const rootToken = `audit-root-${randomBytes(12).toString('hex')}`;
  const webhookPassword = `hook-${randomBytes(8).toString('hex')}`;
  let server: TestServer | undefined;
  let api: string;
  /** Every token and secret the test used: none may appear in an answer of GET /audit. */
  const secrets: string[] = [rootToken, webhookPassword];
  let currentRoot = rootToken;
  let ingester: MadeKey;
  let reader: MadeKey;

  const readAudit = async (query: string, token = currentRoot): Promise<{ entries: Entry[]; answer: Answer }> => {
    const answer = await request(`${api}/audit?${query}`, { headers: bearer(token) });
    assert.equal(answer.status, 200, answer.text);
    for (const secret of secrets)
      assert.ok(!answer.text.includes(secret), `GET /audit shows a secret the test used: ${secret.slice(0, 12)}...`);
    return { entries: answer.body.data.entries, answer };
  };

  const settings = {
    'auth.enabled': true,
    'auth.root_token': rootToken,
    'auth.audit_refusals': REFUSALS_PER_WINDOW,
    'auth.audit_refusal_window': '3s',
    'cluster.node_id': NODE_ID,
  };

  before(async () => {
    server = await TestServer.start({ set: settings });
    api = server.api;
    ingester = await makeKey(api, rootToken, { name: 'shipper on web-1', scope: 'ingest' });
    reader = await makeKey(api, rootToken, { name: 'dashboards reader', scope: 'query' });
    secrets.push(ingester.token, tokenParts(ingester.token).secret, reader.token, tokenParts(reader.token).secret);
  });

  after(async () => {
    await dispose(server);
  });

  it('records each administrative action and refusal once: actor, client address, node, target; never a secret', async () => {
    const keys = await request(`${api}/auth/keys`, { headers: bearer(rootToken) });
    const rootId: string = keys.body.data.keys.find((key: { scope: string }) => key.scope === 'root').id;
    const expected: { action: string; target: string | null; targetName: string | null; method: string; path: string }[] = [
      { action: 'auth.key.create', target: ingester.id, targetName: 'shipper on web-1', method: 'POST', path: '/api/v1/auth/keys' },
      { action: 'auth.key.create', target: reader.id, targetName: 'dashboards reader', method: 'POST', path: '/api/v1/auth/keys' },
    ];

    const doomed = await makeKey(api, rootToken, { name: 'to be revoked', scope: 'admin' });
    secrets.push(doomed.token);
    expected.push({ action: 'auth.key.create', target: doomed.id, targetName: 'to be revoked', method: 'POST', path: '/api/v1/auth/keys' });
    assert.equal((await send(`${api}/auth/keys/${doomed.id}`, 'DELETE', undefined, rootToken)).status, 204);
    const revokePath = `/api/v1/auth/keys/${doomed.id}`;
    expected.push({ action: 'auth.key.revoke', target: doomed.id, targetName: 'to be revoked', method: 'DELETE', path: revokePath });

    const patched = await send(`${api}/config`, 'PATCH', { query: { max_concurrent: 7 }, log_level: 'info' }, rootToken);
    assert.equal(patched.status, 200, patched.text);
    expected.push({
      action: 'config.patch',
      target: 'log_level, query.max_concurrent',
      targetName: null,
      method: 'PATCH',
      path: '/api/v1/config',
    });

    // Saved queries, dashboards and alerts: create, replace, delete each.
    const records = [
      {
        path: 'queries',
        subject: 'saved_query',
        body: (name: string) => ({ name, q: 'from main | where status >= 500' }),
      },
      {
        path: 'dashboards',
        subject: 'dashboard',
        body: (name: string) => ({
          name,
          panels: [{ id: 'errors', title: 'Errors', type: 'table', q: 'from main | head 10', position: { x: 0, y: 0, w: 6, h: 4 } }],
        }),
      },
      {
        path: 'alerts',
        subject: 'alert',
        body: (name: string) => ({
          name,
          q: 'from main | stats count() as n | where n > 100',
          interval: '1m',
          enabled: false,
          channels: [{ type: 'webhook', config: { url: `http://ops:${webhookPassword}@127.0.0.1:9/hook` } }],
        }),
      },
    ];
    for (const record of records) {
      const created = await send(`${api}/${record.path}`, 'POST', record.body(`${record.subject} one`), rootToken);
      assert.equal(created.status, 201, created.text);
      const id: string = created.body.data.id;
      const replaced = await send(`${api}/${record.path}/${id}`, 'PUT', record.body(`${record.subject} two`), rootToken);
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal((await send(`${api}/${record.path}/${id}`, 'DELETE', undefined, rootToken)).status, 204);
      const at = `/api/v1/${record.path}`;
      expected.push(
        { action: `${record.subject}.create`, target: id, targetName: `${record.subject} one`, method: 'POST', path: at },
        { action: `${record.subject}.replace`, target: id, targetName: `${record.subject} two`, method: 'PUT', path: `${at}/${id}` },
        { action: `${record.subject}.delete`, target: id, targetName: `${record.subject} two`, method: 'DELETE', path: `${at}/${id}` },
      );
    }
    // An invalid request changes nothing and is not an action.
    assertError(await send(`${api}/queries`, 'POST', { name: 'broken', q: 'from main | where (' }, rootToken), 400, 'INVALID_QUERY');

    // Rotation last: the root token changes.
    const rotated = await send(`${api}/auth/rotate-root`, 'POST', undefined, rootToken);
    assert.equal(rotated.status, 201, rotated.text);
    currentRoot = rotated.body.data.token;
    secrets.push(currentRoot, tokenParts(currentRoot).secret);
    expected.push({ action: 'auth.root.rotate', target: rootId, targetName: 'root', method: 'POST', path: '/api/v1/auth/rotate-root' });

    const { entries } = await readAudit('limit=1000');
    const admin = entries.filter((entry) => entry.action !== 'auth.refused');
    assert.equal(admin.length, expected.length, `one entry per action:\n${JSON.stringify(admin, null, 1)}`);
    for (const want of expected) {
      const found = admin.filter((entry) => entry.action === want.action && entry.target === want.target);
      assert.equal(found.length, 1, `one ${want.action} entry for ${want.target}`);
      const [entry] = found;
      assert.deepEqual(
        {
          outcome: entry!.outcome,
          actor_key_id: entry!.actor_key_id,
          actor_key_name: entry!.actor_key_name,
          client_ip: entry!.client_ip,
          node: entry!.node,
          method: entry!.method,
          path: entry!.path,
          target_name: entry!.target_name,
        },
        {
          outcome: 'success',
          actor_key_id: rootId,
          actor_key_name: 'root',
          client_ip: '127.0.0.1',
          node: NODE_ID,
          method: want.method,
          path: want.path,
          target_name: want.targetName,
        },
        want.action,
      );
    }
    // Newest first: the rotation, done last, leads.
    assert.equal(admin[0]!.action, 'auth.root.rotate');
    const times = entries.map((entry) => Date.parse(entry.time));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
  });

  it('records a cleared cache, a canceled job, a channel test and a SIGHUP reload, each once', async () => {
    const keys = await request(`${api}/auth/keys`, { headers: bearer(currentRoot) });
    const rootId: string = keys.body.data.keys.find((key: { scope: string }) => key.scope === 'root').id;
    const since = new Date(Date.now() - 1).toISOString();

    assert.equal((await send(`${api}/cache`, 'DELETE', undefined, currentRoot)).status, 200);
    const launched = await send(`${api}/query`, 'POST', { q: 'from main | stats count()', wait: 0 }, currentRoot);
    assert.equal(launched.status, 202, launched.text);
    const jobId: string = launched.body.data.job_id;
    const canceled = await send(`${api}/query/jobs/${jobId}`, 'DELETE', undefined, currentRoot);
    assert.equal(canceled.status, 200, canceled.text);
    // An unknown job is a 404: nothing was canceled, nothing recorded.
    assertError(await send(`${api}/query/jobs/qry_nope`, 'DELETE', undefined, currentRoot), 404, 'NOT_FOUND');
    const alert = await send(
      `${api}/alerts`,
      'POST',
      {
        name: 'pager test',
        q: 'from main | stats count() as n | where n > 100',
        interval: '1m',
        enabled: false,
        channels: [{ type: 'webhook', config: { url: `http://ops:${webhookPassword}@127.0.0.1:9/hook` } }],
      },
      currentRoot,
    );
    assert.equal(alert.status, 201, alert.text);
    const alertId: string = alert.body.data.id;
    const tested = await send(`${api}/alerts/${alertId}/test-channels`, 'POST', {}, currentRoot);
    assert.equal(tested.status, 200, tested.text);
    // A patched key the reload sets back to its value from the flags and file: the reload names it.
    const patched = await send(`${api}/config`, 'PATCH', { query: { max_concurrent: 5 } }, currentRoot);
    assert.equal(patched.status, 200, patched.text);
    server!.process.kill('SIGHUP');
    await server!.waitFor(/config reloaded/, 10_000);

    const expected = [
      { action: 'cache.clear', target: null, target_name: null, method: 'DELETE', path: '/api/v1/cache' },
      { action: 'query.job.cancel', target: jobId, target_name: null, method: 'DELETE', path: `/api/v1/query/jobs/${jobId}` },
      { action: 'alert.create', target: alertId, target_name: 'pager test', method: 'POST', path: '/api/v1/alerts' },
      {
        action: 'alert.test_channels',
        target: alertId,
        target_name: 'pager test',
        method: 'POST',
        path: `/api/v1/alerts/${alertId}/test-channels`,
      },
      { action: 'config.patch', target: 'query.max_concurrent', target_name: null, method: 'PATCH', path: '/api/v1/config' },
    ];
    let entries: Entry[] = [];
    // The reload is recorded after the log line the test waited for.
    await waitUntil(
      async () => (entries = (await readAudit(`from=${since}&limit=1000`)).entries).some((entry) => entry.action === 'config.reload'),
      10_000,
      'the config.reload entry',
    );
    const made = entries.filter((entry) => entry.action !== 'auth.refused').reverse();
    assert.deepEqual(
      made.map(({ action, outcome, actor_key_id, actor_key_name, client_ip, node, method, path, target, target_name }) => ({
        action,
        outcome,
        actor_key_id,
        actor_key_name,
        client_ip,
        node,
        method,
        path,
        target,
        target_name,
      })),
      [
        ...expected.map((want) => ({
          outcome: 'success',
          actor_key_id: rootId,
          actor_key_name: 'root',
          client_ip: '127.0.0.1',
          node: NODE_ID,
          ...want,
        })),
        // A signal has no key, no client address and no path.
        {
          action: 'config.reload',
          outcome: 'success',
          actor_key_id: null,
          actor_key_name: null,
          client_ip: null,
          node: NODE_ID,
          method: 'SIGHUP',
          path: null,
          target: 'query.max_concurrent',
          target_name: null,
        },
      ],
    );
  });

  it('records a refused token and a refused scope, naming the key the token belongs to', async () => {
    const { id } = tokenParts(ingester.token);
    const wrong = `trawl_${id}_${randomBytes(32).toString('base64url')}`;
    secrets.push(wrong, tokenParts(wrong).secret);
    assertError(await request(`${api}/status`, { headers: bearer(wrong) }), 401, 'INVALID_TOKEN');
    assertError(await request(`${api}/config`, { headers: bearer(ingester.token) }), 403, 'FORBIDDEN');

    const { entries } = await readAudit(`action=auth.refused&actor=${encodeURIComponent(ingester.id)}`);
    const byReason = (reason: string) => entries.filter((entry) => entry.reason === reason);
    assert.equal(byReason('INVALID_TOKEN').length, 1, JSON.stringify(entries));
    assert.equal(byReason('FORBIDDEN').length, 1, JSON.stringify(entries));
    assert.deepEqual(
      entries.map(({ action, outcome, actor_key_name, client_ip, node, method, path, scheme, reason }) => ({
        action,
        outcome,
        actor_key_name,
        client_ip,
        node,
        method,
        path,
        scheme,
        reason,
      })),
      [
        {
          action: 'auth.refused',
          outcome: 'failure',
          actor_key_name: 'shipper on web-1',
          client_ip: '127.0.0.1',
          node: NODE_ID,
          method: 'GET',
          path: '/api/v1/config',
          scheme: 'bearer',
          reason: 'FORBIDDEN',
        },
        {
          action: 'auth.refused',
          outcome: 'failure',
          actor_key_name: 'shipper on web-1',
          client_ip: '127.0.0.1',
          node: NODE_ID,
          method: 'GET',
          path: '/api/v1/status',
          scheme: 'bearer',
          reason: 'INVALID_TOKEN',
        },
      ],
    );
  });

  it('answers GET /audit to an admin key only: a query key gets 403, itself recorded', async () => {
    assertError(await request(`${api}/audit`, { headers: bearer(reader.token) }), 403, 'FORBIDDEN');
    const { entries } = await readAudit(`actor=${encodeURIComponent(reader.id)}`);
    assert.deepEqual(
      entries.map(({ action, reason, path }) => ({ action, reason, path })),
      [{ action: 'auth.refused', reason: 'FORBIDDEN', path: '/api/v1/audit' }],
    );
    assertError(await request(`${api}/audit?limit=10001`, { headers: bearer(currentRoot) }), 400, 'VALIDATION_ERROR');
    // q is one where expression: closing it to add stages is refused.
    assertError(
      await request(`${api}/audit?q=${encodeURIComponent('true | stats count()')}`, { headers: bearer(currentRoot) }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('bounds the refusals it records per client address, then says how many it left out', async () => {
    const attempts = REFUSALS_PER_WINDOW + 3;
    for (let i = 0; i < attempts; i++) {
      const status = await getFrom('127.0.0.2', `${api}/stats`, { authorization: `Bearer not-a-token-${i}` });
      assert.equal(status, 401);
    }
    let summaries: Entry[] = [];
    await waitUntil(
      async () => (summaries = (await readAudit('action=auth.refused.suppressed&client_ip=127.0.0.2')).entries).length > 0,
      20_000,
      'the summary of the suppressed refusals',
    );
    assert.equal(summaries.length, 1);
    assert.equal(summaries[0]!.suppressed, attempts - REFUSALS_PER_WINDOW);
    const { entries } = await readAudit('action=auth.refused&client_ip=127.0.0.2');
    assert.equal(entries.length, REFUSALS_PER_WINDOW);
    assert.ok(entries.every((entry) => entry.reason === 'INVALID_TOKEN' && entry.actor_key_id === null && entry.scheme === 'bearer'));
  });

  it('keeps _audit out of from *, /fields, /sources and /stats, and refuses it to ingest and to queries', async () => {
    const ingested = await postJson(`${api}/ingest`, [{ event: 'user login', fields: { user: 'ada' } }], bearer(ingester.token));
    assert.equal(ingested.status, 200, ingested.text);
    const everything = await postJson(
      `${api}/query`,
      { q: 'from * | stats count() by index', from: '1970-01-01T00:00:00Z', to: '2200-01-01T00:00:00Z' },
      bearer(currentRoot),
    );
    assert.equal(everything.status, 200, everything.text);
    assert.deepEqual(everything.body.data.rows, [['main', 1]]);

    const fields = await request(`${api}/fields`, { headers: bearer(currentRoot) });
    assert.equal(fields.status, 200, fields.text);
    const names = fields.body.data.fields.map((field: { name: string }) => field.name);
    assert.ok(names.includes('user'), fields.text);
    assert.ok(!names.includes('action') && !names.includes('actor_key_id'), fields.text);
    const sources = await request(`${api}/sources`, { headers: bearer(currentRoot) });
    assert.equal(sources.status, 200, sources.text);
    assert.ok(!sources.text.includes('_audit'), sources.text);
    const stats = await request(`${api}/stats`, { headers: bearer(currentRoot) });
    assert.deepEqual(stats.body.data.indexes, ['main']);
    assert.equal(stats.body.data.index_count, 1);
    assert.equal(stats.body.data.total_events, 1, 'the audit entries are not counted as events');

    const named = await postJson(`${api}/query`, { q: 'from _audit' }, bearer(currentRoot));
    assertError(named, 400, 'INVALID_QUERY');
    assert.equal(named.body.error.parse_code, 'E015');
    assertError(await postJson(`${api}/queries`, { name: 'peek', q: 'from _audit | head 1' }, bearer(currentRoot)), 400, 'INVALID_QUERY');

    const intoAudit = await postJson(`${api}/ingest`, [{ index: '_audit', event: 'forged entry' }], bearer(ingester.token));
    assert.ok(intoAudit.text.includes("invalid index name '_audit'"), intoAudit.text);
    const raw = await request(`${api}/ingest/raw`, {
      method: 'POST',
      body: 'forged line\n',
      headers: { ...bearer(ingester.token), 'x-index': '_audit' },
    });
    assertError(raw, 400, 'INVALID_REQUEST');
    const { entries } = await readAudit('q=' + encodeURIComponent('contains(_raw, "forged")'));
    assert.deepEqual(entries, []);
  });

  it('keeps its entries across a kill and a restart, like any acknowledged event', async () => {
    const before = await readAudit('limit=10000&from=-1h');
    assert.ok(before.entries.length > 0);
    await server!.kill();
    server = await TestServer.start({ dataDir: server!.dataDir, set: settings });
    api = server.api;
    const after = await readAudit('limit=10000&from=-1h');
    assert.deepEqual(after.entries, before.entries);
  });
});

describe('api: audit log with auth off', function () {
  this.timeout(60_000);
  let server: TestServer | undefined;

  before(async () => {
    server = await TestServer.start();
  });

  after(async () => {
    await dispose(server);
  });

  it('records actions with no key, by client address, and answers GET /audit without a token', async () => {
    const created = await postJson(`${server!.api}/queries`, { name: 'slow requests', q: 'from main | where ms > 1000' });
    assert.equal(created.status, 201, created.text);
    const answer = await request(`${server!.api}/audit?action=saved_query.*`);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.data.entries.map(({ action, actor_key_id, actor_key_name, client_ip, target }: Entry) => ({
        action,
        actor_key_id,
        actor_key_name,
        client_ip,
        target,
      })),
      [{ action: 'saved_query.create', actor_key_id: null, actor_key_name: null, client_ip: '127.0.0.1', target: created.body.data.id }],
    );
  });
});
