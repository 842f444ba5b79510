import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { readJobStream } from '../helpers/sse';

const BASE = Date.UTC(2026, 0, 5, 10, 0, 0) / 1000;
const HOSTS = ['web-1', 'web-2', 'web-3'];

function dataset(): { event: string; time: number; host: string; source: string; fields: Record<string, unknown> }[] {
  return Array.from({ length: 300 }, (_, i) => ({
    event: `request ${i} ${i % 10 === 0 ? 'timeout' : 'ok'} path=/p${i % 4}`,
    time: BASE + i,
    host: HOSTS[i % 3],
    source: i % 2 === 0 ? 'nginx' : 'app',
    fields: { status: i % 5 === 0 ? 500 : 200, ms: i, level: i % 5 === 0 ? 'error' : 'info' },
  }));
}

const RANGE = { from: new Date((BASE - 60) * 1000).toISOString(), to: new Date((BASE + 3600) * 1000).toISOString() };

async function query(server: TestServer, body: Record<string, unknown>) {
  return postJson(`${server.api}/query`, { ...RANGE, ...body });
}

describe('query API', () => {
  let server: TestServer;
  before(async () => {
    // The events carry fixed times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({ set: { 'query.max_query_length': 2000, retention: '3650d' } });
    assert.equal((await postJson(`${server.api}/ingest`, dataset())).body.data.accepted, 300);
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  it('answers an events query newest first with the envelope of docs/api.md', async () => {
    const response = await query(server, { q: 'from main | where status = 500', limit: 5 });
    assert.equal(response.status, 200);
    const { data, meta } = response.body;
    assert.equal(data.type, 'events');
    assert.equal(data.total, 60);
    assert.equal(data.has_more, true);
    assert.equal(data.events.length, 5);
    assert.equal(data.events[0]._raw, 'request 295 ok path=/p3');
    assert.equal(data.events[0]._time, new Date((BASE + 295) * 1000).toISOString());
    assert.deepEqual(Object.keys(data.events[0]).slice(0, 5), ['_time', '_raw', 'index', 'source', 'host']);
    assert.equal(meta.language, 'native');
    assert.equal(typeof meta.took_ms, 'number');
    assert.equal(meta.scanned, 300);
    assert.match(meta.query_id, /^qry_/);
  });

  it('pages with offset and caps limit at query.max_result_limit', async () => {
    const page = await query(server, { q: 'from main | where status = 500', limit: 10, offset: 55 });
    assert.equal(page.body.data.events.length, 5);
    assert.equal(page.body.data.has_more, false);
    assert.equal(page.body.data.events[0]._raw, 'request 20 timeout path=/p0');
    const all = await query(server, { q: 'from main', limit: 10_000_000 });
    assert.equal(all.body.data.events.length, 300);
  });

  it('answers an aggregate query with columns and rows ordered by key', async () => {
    const response = await query(server, { q: 'from main | stats count() as n, avg(ms) by host' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data.columns, ['host', 'n', 'avg_ms']);
    assert.deepEqual(response.body.data.rows, [
      ['web-1', 100, 148.5],
      ['web-2', 100, 149.5],
      ['web-3', 100, 150.5],
    ]);
    assert.equal(response.body.data.total_rows, 3);
    assert.equal(response.body.data.has_more, false);
  });

  it('supports GET /query with the earliest/latest aliases', async () => {
    const params = new URLSearchParams({ q: 'from main | stats count()', from: RANGE.from, to: RANGE.to });
    const response = await request(`${server.api}/query?${params}`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data.rows, [[300]]);
    const aliased = await postJson(`${server.api}/query`, {
      query: 'from main | stats count()',
      earliest: RANGE.from,
      latest: new Date((BASE + 99.5) * 1000).toISOString(),
    });
    assert.deepEqual(aliased.body.data.rows, [[100]]);
  });

  it('validates the request: q, format, language, limit, profile, QUERY_TOO_LARGE', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{}, 400, 'VALIDATION_ERROR'],
      [{ q: 'from main', format: 'csv' }, 400, 'VALIDATION_ERROR'],
      [{ q: 'from main', language: 'spl2' }, 400, 'VALIDATION_ERROR'],
      [{ q: 'from main', limit: -1 }, 400, 'VALIDATION_ERROR'],
      [{ q: 'from main', profile: 'everything' }, 400, 'VALIDATION_ERROR'],
      [{ q: `from main | where ${'a = 1 and '.repeat(300)} b = 2` }, 400, 'QUERY_TOO_LARGE'],
    ];
    for (const [body, status, code] of cases) {
      const response = await query(server, body);
      assert.equal(response.status, status, JSON.stringify(body));
      assert.equal(response.body.error.code, code, JSON.stringify(body));
    }
    const badJson = await request(`${server.api}/query`, {
      method: 'POST',
      body: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(badJson.body.error.code, 'INVALID_JSON');
    assert.doesNotMatch(badJson.body.error.message, /send a JSON object/, 'broken JSON is only said broken');
    // The query sent as plain text: say what the body should be.
    const bare = await request(`${server.api}/query`, {
      method: 'POST',
      body: 'from main | head 3',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(bare.status, 400);
    assert.equal(bare.body.error.code, 'INVALID_JSON');
    assert.match(bare.body.error.message, /send a JSON object such as \{"q": "from main \| head 10"\}/);
  });

  it('rejects bad queries with INVALID_QUERY, parse code, position and suggestion', async () => {
    const legacy = await query(server, { q: 'from main\n| eval x = 1' });
    assert.equal(legacy.status, 400);
    assert.equal(legacy.body.error.code, 'INVALID_QUERY');
    assert.equal(legacy.body.error.parse_code, 'E003');
    assert.equal(legacy.body.error.line, 2);
    assert.equal(legacy.body.error.column, 3);
    assert.match(legacy.body.error.suggestion, /extend/);
    const typo = await query(server, { q: 'from main | wher x = 1' });
    assert.equal(typo.body.error.parse_code, 'E002');
    assert.equal(typo.body.error.suggestion, 'where');
  });

  it('runs async (wait: 0) and hybrid (wait: N) jobs and serves them by id', async () => {
    const handle = await query(server, { q: 'from main | stats count() by level', wait: 0 });
    assert.equal(handle.status, 202);
    assert.deepEqual(Object.keys(handle.body.data).sort(), ['job_id', 'status', 'type']);
    assert.equal(handle.body.data.type, 'job');
    assert.equal(handle.body.data.status, 'running');
    assert.deepEqual(handle.body.meta, { query_id: handle.body.data.job_id });
    const id = handle.body.data.job_id;
    let job: any;
    await waitUntil(
      async () => {
        job = (await request(`${server.api}/query/jobs/${id}`)).body;
        return job.data.status !== 'running';
      },
      10_000,
      'the job to finish',
    );
    assert.equal(job.data.status, 'done');
    assert.equal(job.data.query, 'from main | stats count() by level');
    assert.deepEqual(job.data.results.rows, [
      ['error', 60],
      ['info', 240],
    ]);
    assert.equal(job.meta.query_id, id);
    assert.ok(typeof job.data.completed_at === 'string');

    const hybrid = await query(server, { q: 'from main | stats count()', wait: 5 });
    assert.equal(hybrid.status, 200);
    assert.deepEqual(hybrid.body.data.rows, [[300]]);

    const listed = (await request(`${server.api}/query/jobs?status=complete`)).body.data.jobs;
    assert.ok(listed.some((entry: { job_id: string; status: string }) => entry.job_id === id && entry.status === 'done'));
    const badStatus = await request(`${server.api}/query/jobs?status=bogus`);
    assert.equal(badStatus.status, 400);

    const deleted = await request(`${server.api}/query/jobs/${id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.data.canceled, false);
    assert.equal(deleted.body.data.status, 'done');
    const missing = await request(`${server.api}/query/jobs/qry_nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
  });

  it('streams job progress and completion over SSE', async () => {
    const handle = await query(server, { q: 'from main | stats count() by host', wait: 0 });
    const events = await readJobStream(`${server.api}/query/jobs/${handle.body.data.job_id}/stream`);
    const complete = events.find((event) => event.event === 'complete');
    assert.ok(complete !== undefined, JSON.stringify(events));
    assert.equal(complete.data.data.rows.length, 3);
    assert.equal(events[events.length - 1].event, 'complete');
  });

  it('exports NDJSON from /query/stream with a final __meta line and rejects paging fields', async () => {
    const response = await request(`${server.api}/query/stream`, {
      method: 'POST',
      body: JSON.stringify({ q: 'from main | where host = "web-2"', ...RANGE }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /application\/x-ndjson/);
    const lines = response.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const meta = lines.pop();
    assert.equal(lines.length, 100);
    assert.equal(meta.__meta.total, 100);
    assert.ok(lines.every((line) => line.host === 'web-2'));
    for (const field of ['limit', 'offset', 'wait', 'profile', 'format']) {
      const refused = await postJson(`${server.api}/query/stream`, { q: 'from main', [field]: field === 'format' ? 'json' : 1 });
      assert.equal(refused.status, 400, field);
      assert.equal(refused.body.error.code, 'VALIDATION_ERROR');
    }
  });

  it('explains valid and invalid queries with 200', async () => {
    const valid = await request(`${server.api}/query/explain?q=${encodeURIComponent('from main | where status >= 500 | top 3 host')}`);
    assert.equal(valid.status, 200);
    assert.equal(valid.body.data.is_valid, true);
    assert.match(valid.body.data.native_plan, /top -> stats\+sort\+head/);
    assert.match(valid.body.data.native_plan, /where pushed into scan/);
    assert.match(valid.body.data.native_plan, /Scan main/);
    assert.deepEqual(valid.body.data.errors, []);
    assert.equal(valid.body.meta.language, 'native');
    const invalid = await request(`${server.api}/query/explain?q=${encodeURIComponent('from main | timechart count')}`);
    assert.equal(invalid.status, 200);
    assert.equal(invalid.body.data.is_valid, false);
    assert.equal(typeof invalid.body.data.errors[0].message, 'string');
  });

  it('returns profiles at three levels', async () => {
    const basic = await query(server, { q: 'from main | where status = 500 | stats count()', profile: 'basic' });
    assert.equal(basic.body.meta.profile.rows_read, 300);
    const full = await query(server, { q: 'from main | where status = 500 | stats count()', profile: 'full' });
    assert.equal(full.body.meta.profile.stages[0].rows_in, 300);
    assert.equal(full.body.meta.profile.stages[0].rows_out, 60);
    const trace = await query(server, { q: 'from main | stats count()', profile: 'trace' });
    assert.ok(Array.isArray(trace.body.meta.profile.segments));
  });

  it('caches results and never serves them stale after new events arrive in range', async () => {
    await request(`${server.api}/cache`, { method: 'DELETE' });
    const hitsBefore = (await request(`${server.api}/cache/stats`)).body.data.hits;
    const q = { q: 'from main | stats count()', ...RANGE };
    assert.deepEqual((await postJson(`${server.api}/query`, q)).body.data.rows, [[300]]);
    const second = await postJson(`${server.api}/query`, q);
    assert.deepEqual(second.body.data.rows, [[300]]);
    let stats = (await request(`${server.api}/cache/stats`)).body.data;
    assert.equal(stats.hits - hitsBefore, 1);
    assert.equal(stats.entries, 1);
    assert.equal(second.body.meta.cached, true);
    // An event outside the range leaves the entry valid; one inside invalidates it.
    await postJson(`${server.api}/ingest`, [{ event: 'later', time: BASE + 7200 }]);
    assert.deepEqual((await postJson(`${server.api}/query`, q)).body.data.rows, [[300]]);
    stats = (await request(`${server.api}/cache/stats`)).body.data;
    assert.equal(stats.hits - hitsBefore, 2);
    await postJson(`${server.api}/ingest`, [{ event: 'inside', time: BASE + 10 }]);
    assert.deepEqual((await postJson(`${server.api}/query`, q)).body.data.rows, [[301]]);
    const cleared = await request(`${server.api}/cache`, { method: 'DELETE' });
    assert.equal(cleared.status, 200);
    assert.equal((await request(`${server.api}/cache/stats`)).body.data.entries, 0);
  });
});
