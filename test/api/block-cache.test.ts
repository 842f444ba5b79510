import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';

/**
 * The query workers' cache of decompressed column blocks (storage/segment/payload-cache.ts),
 * seen through `meta.profile.blocks_cached`: a repeated query is served from it, answers stay
 * exact as new segments arrive and old ones are merged away, and a budget of 0 turns it off.
 */

const BASE = Math.floor(Date.now() / 1000) - 600;

interface Generated {
  event: string;
  time: number;
  fields: { status: number; path: string; user: string };
}

function batch(offset: number, count: number): Generated[] {
  return Array.from({ length: count }, (_, k) => {
    const i = offset + k;
    const path = `/item/${(i * 7919) % 700}`;
    const status = i % 9 === 0 ? 503 : i % 4 === 0 ? 404 : 200;
    return { event: `GET ${path} ${status}`, time: BASE + (i % 500), fields: { status, path, user: `u${i % 97}` } };
  });
}

/** count() by path over status >= 500, computed from the generated events. */
function expectedCounts(events: Generated[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) if (event.fields.status >= 500) counts.set(event.fields.path, (counts.get(event.fields.path) ?? 0) + 1);
  return counts;
}

const QUERY = 'from main | where status >= 500 | stats count() by path';
const RANGE = { from: new Date((BASE - 60) * 1000).toISOString(), to: new Date((BASE + 3600) * 1000).toISOString() };

async function countsByPath(server: TestServer): Promise<{ counts: Map<string, number>; cached: number }> {
  const answer = await postJson(`${server.api}/query`, { q: QUERY, ...RANGE, limit: 10000, profile: 'basic' });
  assert.equal(answer.status, 200, answer.text);
  const rows = answer.body.data.rows as [string, number][];
  return { counts: new Map(rows), cached: answer.body.meta.profile.blocks_cached };
}

async function settled(server: TestServer): Promise<void> {
  await waitUntil(
    async () => {
      const status = (await request(`${server.api}/cluster/status`)).body.data;
      const storage = (await request(`${server.api}/metrics`)).body.data.storage;
      return status.buffered_events === 0 && status.segment_count > 0 && !storage.compaction_running && storage.compaction_pending === 0;
    },
    20000,
    'buffered events flushed and compaction idle',
  );
}

describe('block cache', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    if (server !== undefined) assert.equal(await server.stop(), 0);
    server = undefined;
  });

  it('serves a repeated query from decompressed blocks, and stays exact as segments come and merge', async () => {
    const live = await TestServer.start({ set: { 'storage.flush_interval': '100ms', 'storage.compaction_interval': '300ms' } });
    server = live;
    const first = batch(0, 3000);
    assert.equal((await postJson(`${server.api}/ingest`, first)).body.data.accepted, 3000);
    await settled(server);

    const cold = await countsByPath(server);
    assert.deepEqual(cold.counts, expectedCounts(first));
    assert.equal(cold.cached, 0, 'nothing is cached before the first query');
    const warm = await countsByPath(server);
    assert.deepEqual(warm.counts, expectedCounts(first));
    assert.ok(warm.cached > 0, `the repeated query read cached blocks (${warm.cached})`);

    // The operator's view: the JSON metrics and the Prometheus counters.
    const cache = (await request(`${server.api}/metrics`)).body.data.block_cache;
    assert.ok(cache.hits >= warm.cached && cache.misses > 0 && cache.entries > 0 && cache.size_bytes > 0, JSON.stringify(cache));
    assert.equal(cache.hit_rate, cache.hits / (cache.hits + cache.misses));
    assert.ok(cache.max_bytes > 256 * 1024 * 1024 - 16 && cache.max_bytes <= 256 * 1024 * 1024, `budget ${cache.max_bytes}`);
    const exposition = (await request(`${server.url}/metrics`)).text;
    const hits = Number(/^trawl_block_cache_hits_total (\d+)/m.exec(exposition)?.[1]);
    assert.ok(hits >= warm.cached, `trawl_block_cache_hits_total ${hits}`);
    assert.match(exposition, /^trawl_block_cache_bytes [1-9]/m);

    // New segments in the same range (several flushes, which compaction then merges with the first).
    const all = [...first];
    for (let round = 0; round < 4; round++) {
      const more = batch(3000 + round * 500, 500);
      assert.equal((await postJson(`${server.api}/ingest`, more)).body.data.accepted, 500);
      all.push(...more);
      await waitUntil(async () => (await request(`${live.api}/stats`)).body.data.buffered_events === 0, 20_000, `flush ${round + 1}`);
    }
    await settled(server);
    const history = (await request(`${server.api}/compaction/history`)).body.data;
    assert.ok(history.compactions.length > 0, 'the new segments were merged');
    const afterMerge = await countsByPath(server);
    assert.deepEqual(afterMerge.counts, expectedCounts(all));
    const again = await countsByPath(server);
    assert.deepEqual(again.counts, expectedCounts(all));
    assert.ok(again.cached > 0);
  });

  it('stays exact when the workers evict held blocks while queries run at once', async () => {
    // 16 KB a worker: a quarter holds stored blocks (query/exec/held-blocks.ts), evicted all the time.
    const live = await TestServer.start({
      set: { 'storage.flush_interval': '100ms', 'storage.compaction_interval': '1h', 'buffer_manager.block_cache_max_bytes': '32kb' },
    });
    server = live;
    const events: Generated[] = [];
    for (let round = 0; round < 4; round++) {
      const more = batch(round * 1500, 1500);
      assert.equal((await postJson(`${live.api}/ingest`, more)).body.data.accepted, 1500);
      events.push(...more);
      // A segment per round (compaction is off for the hour): more blocks than the budget holds.
      await waitUntil(async () => (await request(`${live.api}/cluster/status`)).body.data.buffered_events === 0, 20000, 'flushed');
    }
    const byUser = new Map<string, number>();
    for (const event of events) if (event.fields.status === 404) byUser.set(event.fields.user, (byUser.get(event.fields.user) ?? 0) + 1);
    const usersOf404 = async (): Promise<Map<string, number>> => {
      const answer = await postJson(`${live.api}/query`, {
        q: 'from main | where status = 404 | stats count() by user',
        ...RANGE,
        limit: 10000,
      });
      assert.equal(answer.status, 200, answer.text);
      return new Map(answer.body.data.rows as [string, number][]);
    };
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all([countsByPath(live), usersOf404(), countsByPath(live), usersOf404()]);
      assert.deepEqual(answers[0].counts, expectedCounts(events));
      assert.deepEqual(answers[1], byUser);
      assert.deepEqual(answers[2].counts, expectedCounts(events));
      assert.deepEqual(answers[3], byUser);
    }
    const cache = (await request(`${live.api}/metrics`)).body.data.block_cache;
    assert.ok(cache.size_bytes <= 48 * 1024, `held and cached bytes stay near the budget: ${JSON.stringify(cache)}`);
  });

  it('caches nothing with a budget of 0', async () => {
    server = await TestServer.start({
      set: { 'storage.flush_interval': '100ms', 'storage.compaction_interval': '300ms', 'buffer_manager.block_cache_max_bytes': '0' },
    });
    const events = batch(0, 2000);
    assert.equal((await postJson(`${server.api}/ingest`, events)).body.data.accepted, 2000);
    await settled(server);
    for (let run = 0; run < 2; run++) {
      const answer = await countsByPath(server);
      assert.deepEqual(answer.counts, expectedCounts(events));
      assert.equal(answer.cached, 0);
    }
    const cache = (await request(`${server.api}/metrics`)).body.data.block_cache;
    assert.deepEqual({ hits: cache.hits, size: cache.size_bytes, max: cache.max_bytes }, { hits: 0, size: 0, max: 0 });
  });
});
