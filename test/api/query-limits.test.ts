import { strict as assert } from 'assert';
import fs from 'fs';
import { patchConfig, waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { readJobStream } from '../helpers/sse';

/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function ingestMany(server: TestServer, count: number): Promise<void> {
  const base = Date.UTC(2026, 1, 1) / 1000;
  for (let start = 0; start < count; start += 50_000) {
    const events = Array.from({ length: Math.min(50_000, count - start) }, (_, i) => ({
      event: `line ${start + i} user=u${(start + i) % 977} some padding text to make the row longer ${(start + i) * 7919}`,
      time: base + (start + i) / 1000,
      fields: { n: start + i },
    }));
    const response = await postJson(`${server.api}/ingest`, events);
    assert.equal(response.status, 200);
  }
}

/** A query that costs tens of microseconds per row (seconds over the test's events): hashing every event over and over. */
const HEAVY =
  'from main | extend a = sha256(_raw), b = sha256(concat(a, _raw)), c = sha256(concat(b, _raw)), d = sha256(concat(c, _raw)), ' +
  'e = sha256(concat(d, _raw)), f = md5(concat(e, _raw)) | stats dc(f)';

/** The job once it is no longer running (fails after 10 s). */
async function finishedJob(server: TestServer, id: string): Promise<any> {
  let job: any;
  await waitUntil(
    async () => {
      job = (await request(`${server.api}/query/jobs/${id}`)).body.data;
      return job.status !== 'running';
    },
    10_000,
    `job ${id} to finish`,
  );
  return job;
}

describe('query limits and cancellation', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    // No compaction during the test: the CPU check after cancel must see the query's work only.
    // The events carry fixed times: a retention that keeps them (older ones are refused at ingest).
    server = await TestServer.start({
      set: { 'query.max_concurrent': 1, 'storage.flush_interval': '200ms', 'storage.compaction_interval': '1h', retention: '3650d' },
    });
    await ingestMany(server, 300_000);
    await waitUntil(async () => (await request(`${server.api}/stats`)).body.data.buffered_events === 0, 30_000, 'the events flushed');
  });
  after(async () => {
    await server.stop();
  });

  it('refuses a query over query.max_concurrent with 429 TOO_MANY_REQUESTS, and cancel stops the CPU work', async () => {
    const first = await postJson(`${server.api}/query`, { q: HEAVY, wait: 0 });
    assert.equal(first.status, 202);
    const id = first.body.data.job_id;
    const second = await postJson(`${server.api}/query`, { q: 'from main | stats count()' });
    assert.equal(second.status, 429);
    assert.equal(second.body.error.code, 'TOO_MANY_REQUESTS');
    assert.equal(second.headers.get('retry-after'), '1');
    // Let the job scan for a moment (its workers are busy hashing), then cancel it. Rows read are
    // counted per acknowledged message of several blocks, which can come late in a short scan:
    // waiting for them could let the job finish first.
    let state = 'unknown';
    for (let attempt = 0; attempt < 200; attempt++) {
      const job = (await request(`${server.api}/query/jobs/${id}`)).body.data;
      state = `${job.status} after ${attempt * 20} ms, ${job.progress?.rows_read_so_far} rows read`;
      if (job.status === 'running' && (job.progress.rows_read_so_far > 0 || attempt >= 15)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const canceled = await request(`${server.api}/query/jobs/${id}`, { method: 'DELETE' });
    assert.equal(canceled.body.data.canceled, true, `the job was ${state} before the cancel, then ${canceled.body.data.status}`);
    assert.equal(canceled.body.data.status, 'canceled');
    const job = (await request(`${server.api}/query/jobs/${id}`)).body.data;
    assert.equal(job.status, 'canceled');
    assert.equal(typeof job.error.message, 'string');
    // Within a moment the process goes (nearly) idle: the scan really stopped. Each check measures
    // the CPU used over half a second; a scan still hashing would keep two cores busy.
    let used = Infinity;
    await waitUntil(
      async () => {
        const before = cpuSeconds(server.process.pid as number);
        await new Promise((resolve) => setTimeout(resolve, 500));
        used = cpuSeconds(server.process.pid as number) - before;
        return used < 0.15;
      },
      5_000,
      'the server to go idle after the cancel',
    );
    assert.ok(used < 0.15, `${used}s of CPU in the last half second`);
    // And a new query runs again.
    const after = await postJson(`${server.api}/query`, { q: 'from main | stats count()' });
    assert.equal(after.status, 200);
    assert.deepEqual(after.body.data.rows, [[300_000]]);
  });

  it('reports live progress over SSE while a long query runs, then completes', async () => {
    // Hashing every row twice keeps the job running for seconds: long enough for progress events with previews.
    const handle = await postJson(`${server.api}/query`, {
      q: 'from main | where sha256(concat(sha256(_raw), _raw)) != "x" | where n >= 0',
      wait: 0,
    });
    const events = await readJobStream(`${server.api}/query/jobs/${handle.body.data.job_id}/stream`);
    assert.equal(events[0].event, 'progress');
    for (const key of ['phase', 'segments_total', 'segments_scanned', 'segments_skipped_bloom', 'rows_read_so_far', 'elapsed_ms']) {
      assert.ok(key in events[0].data, key);
    }
    const last = events[events.length - 1];
    assert.equal(last.event, 'complete');
    assert.equal(last.data.data.total, 300_000);
    // Progress comes about once a second and carries the newest rows found so far once there are any.
    const withPreview = events.filter((event) => event.event === 'progress' && event.data.preview !== undefined);
    if (last.data.meta.took_ms >= 2500)
      assert.ok(withPreview.length > 0, `no preview in ${events.length - 1} progress events over ${last.data.meta.took_ms} ms`);
    for (const event of withPreview) assert.ok(event.data.preview.length > 0 && event.data.preview_version >= 1);
  });

  it('removes finished jobs after query.job_ttl', async () => {
    await patchConfig(server, { query: { job_ttl: '300ms' } });
    try {
      const done = await postJson(`${server.api}/query`, { q: 'from main | stats count()' });
      const id = done.body.meta.query_id;
      assert.equal((await request(`${server.api}/query/jobs/${id}`)).status, 200);
      await waitUntil(async () => (await request(`${server.api}/query/jobs/${id}`)).status === 404, 6_000, 'the finished job removed');
    } finally {
      await patchConfig(server, { query: { job_ttl: '5m' } });
    }
  });

  it('ends an over-time query in error (query.max_query_runtime, patched at runtime)', async () => {
    const patched = await patchConfig(server, { query: { max_query_runtime: '200ms' } });
    assert.equal(patched.status, 200);
    try {
      const handle = await postJson(`${server.api}/query`, { q: HEAVY, wait: 0 });
      const job = await finishedJob(server, handle.body.data.job_id);
      assert.equal(job.status, 'error');
      assert.equal(job.error.code, 'QUERY_TIMEOUT');
    } finally {
      await patchConfig(server, { query: { max_query_runtime: '5m' } });
    }
  });

  it('sort | head N, a last-stage sort and top keep only the rows and groups they answer, within a 16 MB budget', async () => {
    // 300,000 rows of ~150 bytes would need ~45 MB held at once.
    await patchConfig(server, { query: { max_query_memory: '16mb' } });
    try {
      const top = await postJson(`${server.api}/query`, { q: 'from main | sort n desc | head 10' });
      assert.equal(top.status, 200, top.text.slice(0, 300));
      assert.deepEqual(
        top.body.data.events.map((event: { n: number }) => event.n),
        Array.from({ length: 10 }, (_, i) => 299_999 - i),
      );
      assert.equal(top.body.data.total, 10);
      // A string key: `user=u<n % 977>` sorts as text ("u0" < "u1" < "u10" < ...); ties newest first.
      const byUser = await postJson(`${server.api}/query`, {
        q: 'from main | extend user = extract(_raw, "user=(u[0-9]+)") | sort user | head 3 | keep n, user',
      });
      assert.equal(byUser.status, 200, byUser.text.slice(0, 300));
      const u0 = Array.from({ length: 300_000 }, (_, n) => n).filter((n) => n % 977 === 0);
      assert.deepEqual(
        byUser.body.data.events,
        u0
          .slice(-3)
          .reverse()
          .map((n) => ({ n, user: 'u0' })),
      );
      // The last stage: only the page is kept, every match is counted.
      const page = await postJson(`${server.api}/query`, { q: 'from main | sort n', limit: 5, offset: 2 });
      assert.equal(page.status, 200, page.text.slice(0, 300));
      assert.deepEqual(
        page.body.data.events.map((event: { n: number }) => event.n),
        [2, 3, 4, 5, 6],
      );
      assert.equal(page.body.data.total, 300_000);
      assert.equal(page.body.data.has_more, true);
      // `top` keeps a row count per value: 200,000 distinct values fit in 16 MB (about 70 bytes each).
      const topValues = await postJson(`${server.api}/query`, { q: 'from main | where n < 200000 | top 3 n' });
      assert.equal(topValues.status, 200, topValues.text.slice(0, 300));
      assert.deepEqual(
        topValues.body.data.rows,
        [0, 1, 2].map((n) => [n, 1, 0.0005]),
      );
      // A stage that needs every row is still held to the budget.
      const dedup = await postJson(`${server.api}/query`, { q: 'from main | dedup n' });
      assert.equal(dedup.status, 400, dedup.text.slice(0, 300));
      assert.equal(dedup.body.error.code, 'QUERY_MEMORY_EXCEEDED');
    } finally {
      await patchConfig(server, { query: { max_query_memory: '1gb' } });
    }
  });

  it('fails a query over its memory budget with QUERY_MEMORY_EXCEEDED (sync 400 and as a job error)', async () => {
    await patchConfig(server, { query: { max_query_memory: '256kb' } });
    try {
      const sync = await postJson(`${server.api}/query`, { q: 'from main | dedup n' });
      assert.equal(sync.status, 400);
      assert.equal(sync.body.error.code, 'QUERY_MEMORY_EXCEEDED');
      const handle = await postJson(`${server.api}/query`, { q: 'from main | dedup n', wait: 0 });
      const job = await finishedJob(server, handle.body.data.job_id);
      assert.equal(job.status, 'error');
      assert.equal(job.error.code, 'QUERY_MEMORY_EXCEEDED');
    } finally {
      await patchConfig(server, { query: { max_query_memory: '1gb' } });
    }
  });
});
