import { strict as assert } from 'assert';
import fs from 'fs';
import { waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { BACKGROUND_NICE } from '../../storage/threads/thread-priority';

/** The nice value of each thread of a process (Linux /proc). */
function threadNices(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Field 19 (nice), counted after the parenthesized command name (field 2).
    return Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[16]);
  });
}

describe('operational endpoints', () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ set: { 'storage.flush_interval': '200ms', 'storage.compaction_interval': '300ms' } });
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  it('GET /health answers healthy with the version', async () => {
    const response = await request(`${server.url}/health`);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body.data).sort(), ['degraded', 'status', 'version']);
    assert.equal(response.body.data.status, 'healthy');
    assert.equal(response.body.data.degraded, false);
    assert.match(response.body.data.version, /^\d+\.\d+\.\d+/);
  });

  it('counts ingest in the Prometheus metrics at the root', async () => {
    const now = Date.now() / 1000;
    const events = Array.from({ length: 25 }, (_, i) => ({ event: `metric event ${i}`, time: now - i, source: 'metrics-test' }));
    assert.equal((await postJson(`${server.api}/ingest`, events)).status, 200);
    const response = await request(`${server.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
    const line = response.text.split('\n').find((l) => l.startsWith('trawl_ingest_events_total{endpoint="ingest"}'));
    assert.ok(line !== undefined, 'ingest counter present');
    assert.ok(Number(line.split(' ')[1]) >= 25);
    for (const name of [
      'trawl_buffered_events',
      'trawl_segments',
      'trawl_flush_duration_seconds_bucket',
      'trawl_compaction_duration_seconds_bucket',
      'trawl_process_cpu_user_seconds_total',
    ]) {
      assert.ok(response.text.includes(name), `${name} exported`);
    }
  });

  it('reports storage in /stats, /status, /metrics (JSON) and /cluster/status', async () => {
    const events = Array.from({ length: 10 }, (_, i) => ({ event: `stats event ${i}`, index: 'ops-test', source: 'ops' }));
    assert.equal((await postJson(`${server.api}/ingest`, events)).status, 200);
    // A second index, so that the counts cover more than one.
    const mainEvents = Array.from({ length: 5 }, (_, i) => ({ event: `stats main event ${i}`, source: 'ops' }));
    assert.equal((await postJson(`${server.api}/ingest`, mainEvents)).status, 200);
    // Until the flusher has written the buffer out.
    let stats: any;
    await waitUntil(
      async () => {
        stats = (await request(`${server.api}/stats`)).body.data;
        return stats.buffered_events === 0 && stats.segment_count > 0;
      },
      10_000,
      'the flush',
    );
    assert.ok(stats.total_events >= 15);
    assert.ok(stats.events_today >= 15);
    assert.ok(stats.index_count >= 2);
    assert.ok(stats.storage_bytes > 0);
    assert.equal(stats.buffered_events, 0);
    assert.ok(typeof stats.oldest_event === 'string');
    for (const key of [
      'uptime_seconds',
      'storage_bytes',
      'total_events',
      'events_today',
      'index_count',
      'segment_count',
      'buffered_events',
      'sources',
    ]) {
      assert.ok(key in stats, `stats.${key}`);
    }

    const status = (await request(`${server.api}/status`)).body.data;
    assert.equal(status.health, 'healthy');
    assert.equal(status.events.total, stats.total_events);
    assert.ok(status.storage.used_bytes > 0);
    assert.deepEqual(status.queries, { active: 0 });
    assert.deepEqual(Object.keys(status.tail).sort(), ['active_sessions', 'subscriber_count', 'total_dropped_events']);
    assert.deepEqual(Object.keys(status.views).sort(), ['active', 'total']);

    const metrics = (await request(`${server.api}/metrics`)).body.data;
    assert.equal(metrics.storage.total_events, stats.total_events);

    const cluster = (await request(`${server.api}/cluster/status`)).body.data;
    assert.equal(cluster.node_count, 1);
    assert.equal(cluster.nodes.length, 1);
    assert.equal(cluster.nodes[0].state, 'alive');
    assert.equal(cluster.segment_count, stats.segment_count);
    assert.equal(cluster.index_count, stats.index_count);
    assert.equal(cluster.buffered_events, 0);
    assert.equal(cluster.data_dir, server.dataDir);
  });

  it('records compactions and filters the history by since; the compaction runs in a thread at background priority, everything else at normal priority', async () => {
    // Four small flushes of one key: the compactor merges them within a few intervals.
    const now = Date.now() / 1000;
    for (let round = 0; round < 5; round++) {
      const events = Array.from({ length: 5 }, (_, i) => ({ event: `round ${round} event ${i}`, time: now - 10, index: 'compact-me' }));
      assert.equal((await postJson(`${server.api}/ingest`, events)).status, 200);
      await waitUntil(
        async () => (await request(`${server.api}/stats`)).body.data.buffered_events === 0,
        20_000,
        `flush of round ${round}`,
      );
    }
    let history: { compactions: { index: string; inputs: unknown[]; rows: number; finished_at: string }[] } = { compactions: [] };
    await waitUntil(
      async () => {
        history = (await request(`${server.api}/compaction/history`)).body.data;
        return history.compactions.some((c) => c.index === 'compact-me');
      },
      20_000,
      'a compaction of compact-me',
    );
    const manifest = history.compactions.find((c) => c.index === 'compact-me');
    assert.ok(manifest !== undefined, 'a compaction of compact-me was recorded');
    assert.ok(manifest.inputs.length >= 2);
    const later = new Date(Date.parse(manifest.finished_at) + 1).toISOString();
    const filtered = (await request(`${server.api}/compaction/history?since=${encodeURIComponent(later)}`)).body.data;
    assert.ok(filtered.compactions.every((c: { finished_at: string }) => c.finished_at >= later));
    const bad = await request(`${server.api}/compaction/history?since=yesterday-ish`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    // Once nothing is left to merge, the backlog reads empty.
    await waitUntil(
      async () => {
        const storage = (await request(`${server.api}/metrics`)).body.data.storage;
        return !storage.compaction_running && storage.compaction_pending === 0;
      },
      20_000,
      'an empty compaction backlog',
    );

    // The merge above started the compaction worker. Thread priorities are read from /proc (Linux).
    if (process.platform === 'linux') {
      const nices = threadNices(server.process.pid as number);
      assert.equal(nices.filter((nice) => nice === BACKGROUND_NICE).length, 1, `one compaction worker among ${JSON.stringify(nices)}`);
      assert.equal(nices.filter((nice) => nice !== BACKGROUND_NICE && nice !== 0).length, 0);
    }
  });

  it('answers unknown paths with 404 NOT_FOUND in the envelope', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v2/ingest']) {
      const response = await request(`${server.url}${path}`);
      assert.equal(response.status, 404);
      assert.equal(response.body.error.code, 'NOT_FOUND');
      assert.equal(typeof response.body.error.message, 'string');
    }
  });
});
