/**
 * Acknowledged means durable: kill -9 right after the last acknowledgement (nothing flushed) or in
 * the middle of a stream (flushes running), restart on the same data dir, stop cleanly, and check
 * every acknowledged event is stored exactly once.
 */
import { strict as assert } from 'assert';
import { dispose, post } from '../helpers/api';
import { request, TestServer } from '../helpers/server';
import { readStoredEvents, type StoredEvent } from '../helpers/storage';

type Kind = 'native' | 'raw' | 'hec' | 'bulk' | 'otlp';
const KINDS: Kind[] = ['native', 'raw', 'hec', 'bulk', 'otlp'];

interface Batch {
  kind: Kind;
  path: string;
  body: string;
  headers: Record<string, string>;
  uids: string[];
}

/** One request of `size` events with unique `uid` fields, in the format of `kind`. */
function batch(kind: Kind, tag: string, size: number): Batch {
  const uids = Array.from({ length: size }, (_, i) => `${tag}-${i}`);
  const time = 1_700_000_000;
  switch (kind) {
    case 'native':
      return {
        kind,
        uids,
        path: '/ingest',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          uids.map((uid, i) => ({ event: `native ${uid}`, time: time + i / 1000, source: 'dur-native', fields: { uid, n: i } })),
        ),
      };
    case 'raw':
      return {
        kind,
        uids,
        path: '/ingest/raw',
        headers: { 'content-type': 'text/plain', 'x-source': 'dur-raw' },
        body: uids.map((uid, i) => JSON.stringify({ uid, msg: `raw ${uid}`, n: i })).join('\n') + '\n',
      };
    case 'hec':
      return {
        kind,
        uids,
        path: '/ingest/hec',
        headers: { 'content-type': 'application/json' },
        body: uids.map((uid) => JSON.stringify({ event: `hec ${uid}`, time, source: 'dur-hec', fields: { uid } })).join('\n'),
      };
    case 'bulk':
      return {
        kind,
        uids,
        path: '/es/_bulk',
        headers: { 'content-type': 'application/x-ndjson' },
        body: uids
          .map((uid) => `{"index":{"_index":"dur-bulk"}}\n${JSON.stringify({ uid, '@timestamp': '2024-05-01T00:00:00Z' })}\n`)
          .join(''),
      };
    case 'otlp':
      return {
        kind,
        uids,
        path: '/otlp/v1/logs',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          resourceLogs: [
            {
              resource: { attributes: [{ key: 'service.name', value: { stringValue: 'dur-otlp' } }] },
              scopeLogs: [
                {
                  logRecords: uids.map((uid) => ({
                    timeUnixNano: '1700000000000000000',
                    body: { stringValue: `otlp ${uid}` },
                    attributes: [{ key: 'uid', value: { stringValue: uid } }],
                  })),
                },
              ],
            },
          ],
        }),
      };
  }
}

/** Sends a batch; resolves true when the answer acknowledged all its events. */
async function send(server: TestServer, b: Batch): Promise<boolean> {
  const answer = await post(`${server.api}${b.path}`, b.body, b.headers);
  if (b.kind === 'otlp') return answer.status === 200;
  if (b.kind === 'bulk') return answer.status === 200 && answer.body.errors === false && answer.body.items.length === b.uids.length;
  if (b.kind === 'hec') return answer.status === 200 && answer.body.accepted === b.uids.length;
  return answer.status === 200 && answer.body.data.accepted === b.uids.length;
}

/** uid -> stored count; fails on events without a uid. */
function uidCounts(stored: StoredEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of stored) {
    assert.equal(typeof event.uid, 'string', `event without uid: ${JSON.stringify(event)}`);
    counts.set(event.uid as string, (counts.get(event.uid as string) ?? 0) + 1);
  }
  return counts;
}

describe('api: durability across kill -9', function () {
  const servers: TestServer[] = [];
  const start = async (options: Parameters<typeof TestServer.start>[0]): Promise<TestServer> => {
    const server = await TestServer.start(options);
    servers.push(server);
    return server;
  };

  after(async () => {
    for (const server of servers) await dispose(server, true);
  });

  it('a second server on a data dir in use exits 1, saying another trawl process holds it', async () => {
    const first = await start({});
    await assert.rejects(
      TestServer.start({ dataDir: first.dataDir }),
      (error: Error) =>
        /server exited \(1\)/.test(error.message) &&
        error.message.includes(`the data dir ${first.dataDir} is in use by another trawl process`) &&
        !/Resource temporarily unavailable/.test(error.message),
    );
    // The first one is untouched.
    assert.equal((await request(`${first.url}/health`)).status, 200);
  });

  it('20,000 acknowledged events survive a kill right after the last acknowledgement (nothing flushed)', async () => {
    // The events carry fixed 2023 times: a retention that keeps them (older ones are refused at ingest).
    const set = { 'storage.flush_interval': '1h', retention: '3650d' };
    const first = await start({ set });
    const batches = Array.from({ length: 40 }, (_, i) => batch(KINDS[i % KINDS.length]!, `a${i}`, 500));
    // Four requests at a time, mixed endpoints.
    for (let i = 0; i < batches.length; i += 4) {
      const results = await Promise.all(batches.slice(i, i + 4).map((b) => send(first, b)));
      results.forEach((ok, j) => assert.ok(ok, `batch ${i + j} (${batches[i + j]!.kind}) not acknowledged`));
    }
    const stats = await request(`${first.api}/stats`);
    assert.equal(stats.body.data.buffered_events, 20_000, stats.text);
    assert.equal(stats.body.data.segment_count, 0, 'nothing flushed before the kill');
    await first.kill();

    const second = await start({ dataDir: first.dataDir, set });
    const restarted = await request(`${second.api}/stats`);
    assert.equal(restarted.body.data.total_events, 20_000, restarted.text);
    assert.equal(await second.stop(), 0, second.log);

    const stored = await readStoredEvents(first.dataDir);
    assert.equal(stored.length, 20_000);
    const counts = uidCounts(stored);
    assert.equal(counts.size, 20_000);
    for (const b of batches)
      for (const uid of b.uids) assert.equal(counts.get(uid), 1, `${uid} (${b.kind}) stored ${counts.get(uid) ?? 0} times`);
    const sources = new Map<string, number>();
    for (const event of stored) sources.set(event.source as string, (sources.get(event.source as string) ?? 0) + 1);
    assert.deepEqual([...sources].sort(), [
      ['dur-bulk', 4000],
      ['dur-hec', 4000],
      ['dur-native', 4000],
      ['dur-otlp', 4000],
      ['dur-raw', 4000],
    ]);
  });

  it('a kill in the middle of a stream (flushes running) loses no acknowledged event and splits no request', async () => {
    // The events carry fixed 2023 times: a retention that keeps them (older ones are refused at ingest).
    const set = { 'storage.flush_interval': '50ms', retention: '3650d' };
    const first = await start({ set });
    const sent: Batch[] = [];
    const acked = new Set<Batch>();
    let killed = false;
    let kill: Promise<void> | undefined;
    const worker = async (w: number): Promise<void> => {
      for (let n = 0; !killed && n < 1000; n++) {
        const b = batch(KINDS[(w + n) % KINDS.length]!, `m${w}-${n}`, 250);
        sent.push(b);
        let ok: boolean;
        try {
          ok = await send(first, b);
        } catch {
          return; // connection dropped by the kill: outcome unknown
        }
        if (!ok) return;
        acked.add(b); // a 200 is an acknowledgement, even one that lands after the kill was decided
        if (acked.size >= 40 && !killed) {
          killed = true;
          kill = first.kill();
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    await kill;
    assert.ok(killed);

    const second = await start({ dataDir: first.dataDir, set });
    assert.equal(await second.stop(), 0, second.log);
    if (process.env.TRAWL_TEST_VERBOSE)
      console.log(`      sent ${sent.length}, acked ${acked.size}; ${second.log.match(/replayed.*/)?.[0] ?? 'nothing replayed'}`);
    const counts = uidCounts(await readStoredEvents(first.dataDir));
    const known = new Set(sent.flatMap((b) => b.uids));
    for (const [uid, count] of counts) {
      assert.ok(known.has(uid), `stored but never sent: ${uid}`);
      assert.equal(count, 1, `${uid} stored ${count} times`);
    }
    for (const b of acked) for (const uid of b.uids) assert.equal(counts.get(uid), 1, `acknowledged ${uid} (${b.kind}) not stored`);
    for (const b of sent) {
      const present = b.uids.filter((uid) => counts.has(uid)).length;
      assert.ok(present === 0 || present === b.uids.length, `request ${b.uids[0]} (${b.kind}) partly stored: ${present}/${b.uids.length}`);
    }
    assert.ok(acked.size >= 40);
  });
});
