/**
 * Writes under faults, 3 real nodes at replication 2: an owner that stalls (SIGSTOP) costs a
 * request at most cluster.write_timeout, and the share it was sent before it stalled, which it
 * applies once it resumes, is not applied again when its hint is replayed; a request far over
 * gRPC's default message size, spread over many keys, is stored whole; a share a live owner
 * refuses after another owner stored its own becomes a hint instead of failing the request, and
 * a request refused is refused before anything of it is stored.
 */
import { strict as assert } from 'assert';
import { assertError, patchConfig, waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, storedEvents, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { metricSum, metricValue } from './helpers/metrics';
import { eventsByOwner, type RingLayout } from './helpers/placement';
import { taggedEvents } from './helpers/test-events';

const IDS = ['node1', 'node2', 'node3'];
const RING: RingLayout = { members: IDS, replicationFactor: 2 };
const WRITE_TIMEOUT_MS = 500;

describe('cluster writes under faults: exactly once, whole or nothing, bounded waits', function () {
  this.timeout(180_000);
  let nodes: ClusteredServer[] = [];

  before(async () => {
    // A failure timeout that a busy machine's pauses do not reach: the large request's queries scan for seconds.
    nodes = await startClusteredServers(3, {
      set: { 'cluster.replication_factor': 2, 'cluster.write_timeout': `${WRITE_TIMEOUT_MS}ms`, 'cluster.failure_timeout': '3s' },
    });
  });

  after(async () => {
    for (const node of nodes) node.server.process.kill('SIGCONT');
    await stopClusteredServers(nodes, true);
  });

  const node = (id: string): ClusteredServer => nodes.find((each) => each.id === id)!;
  const storedByNode = async (): Promise<Map<string, number>> =>
    new Map(await Promise.all(nodes.map(async (each) => [each.id, await storedEvents(each)] as const)));
  const hintsPending = async (): Promise<number> => {
    let pending = 0;
    for (const each of nodes) pending += await metricSum(each, 'trawl_hints_pending');
    return pending;
  };
  const countOf = async (via: ClusteredServer, tag: string): Promise<{ count: number; partial: boolean }> => {
    const from = new Date(Date.now() - 5 * 86_400_000).toISOString();
    const to = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const answer = await postJson(`${via.api}/query`, {
      q: `from main | where startswith(_raw, "${tag} ") | stats count() as n`,
      from,
      to,
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.meta.partial === true, false, `not partial: ${JSON.stringify(answer.body.meta)}`);
    return { count: answer.body.data.rows[0][0] as number, partial: false };
  };

  it('answers within cluster.write_timeout while an owner is stopped, and that owner holds its share once after it resumes and its hints are replayed', async () => {
    const frozen = node('node3');
    const before = await storedByNode();
    frozen.server.process.kill('SIGSTOP');
    try {
      const events = taggedEvents('stalled', 600, 40);
      const share = eventsByOwner(events, RING);
      assert.ok(share.get('node3')! > 0, 'node3 owns some of the keys');
      const started = Date.now();
      const answer = await postJson(`${node('node1').api}/ingest`, events);
      const took = Date.now() - started;
      assert.equal(answer.status, 200, answer.text);
      assert.ok(took < WRITE_TIMEOUT_MS + 1500, `answered in ${took} ms, cluster.write_timeout is ${WRITE_TIMEOUT_MS} ms`);
      assert.ok((await metricValue(node('node1'), 'trawl_hints_pending', 'target="node3"')) > 0, 'node1 keeps node3 share as hints');
      // node3 has the Write in its socket: it applies it on SIGCONT, then node1 replays the hint of the same part.
      frozen.server.process.kill('SIGCONT');
      await waitForUp(nodes, IDS);
      await waitUntil(async () => (await hintsPending()) === 0, 30_000, 'every hint replayed');
      const after = await storedByNode();
      for (const id of IDS) assert.equal(after.get(id)! - before.get(id)!, share.get(id), `${id} holds its share once`);
      assert.deepEqual(await countOf(node('node2'), 'stalled'), { count: events.length, partial: false });
    } finally {
      frozen.server.process.kill('SIGCONT');
    }
  });

  it('stores a request of many megabytes over many keys whole on every owner', async () => {
    // 16,000 events of ~400 bytes, 20 s apart over 89 hours: far over gRPC's 4 MiB a message, over about 1,400 keys.
    const base = Math.floor(Date.now() / 1000) - 4 * 86_400;
    const pad = 'x'.repeat(360);
    const events = Array.from({ length: 16_000 }, (_, i) => ({
      event: `large-request ${i} ${pad}`,
      time: base + i * 20,
      host: `large-${i % 7}`,
      source: 'app',
    }));
    const body = JSON.stringify(events);
    assert.ok(body.length > 6_000_000, `the body is ${body.length} bytes`);
    const before = await storedByNode();
    const answer = await postJson(`${node('node2').api}/ingest`, events);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.accepted, events.length);
    // A part an owner does not acknowledge within cluster.write_timeout waits as a hint.
    await waitUntil(async () => (await hintsPending()) === 0, 60_000, 'every hint replayed');
    const after = await storedByNode();
    const added = IDS.reduce((sum, id) => sum + after.get(id)! - before.get(id)!, 0);
    assert.equal(added, 2 * events.length, 'two copies of every event over the nodes');
    assert.deepEqual(await countOf(node('node3'), 'large-request'), { count: events.length, partial: false });
  });

  it('keeps the share a full owner refuses as a hint once another owner stored its own, and refuses whole only what nothing stored', async () => {
    const full = node('node2');
    const limit = (await request(`${full.api}/config`)).body.data.ingest.max_buffered_events as number;
    const before = await storedByNode();
    const patched = await patchConfig(full.server, { ingest: { max_buffered_events: 1 } });
    assert.equal(patched.status, 200, patched.text);
    let acknowledged: number;
    try {
      // Through node2 itself: its own share cannot be stored, so nothing is, and the request is refused.
      const refused = await postJson(`${full.api}/ingest`, taggedEvents('refused-whole', 400, 40));
      assertError(refused, 503, 'BACKPRESSURE');
      assert.match(refused.body.error.message, /nothing was stored/);
      assert.deepEqual(await storedByNode(), before, 'a refused request stored nothing anywhere');

      // Through node1: node1 or node3 stores its share, so node2's becomes a hint and the request succeeds.
      const events = taggedEvents('refused-share', 400, 40);
      const answer = await postJson(`${node('node1').api}/ingest`, events);
      assert.equal(answer.status, 200, answer.text);
      acknowledged = events.length;
      assert.ok((await metricValue(node('node1'), 'trawl_hints_pending', 'target="node2"')) > 0, 'node1 keeps node2 share as hints');
    } finally {
      await patchConfig(full.server, { ingest: { max_buffered_events: limit } });
    }
    await waitUntil(async () => (await hintsPending()) === 0, 30_000, 'node2 to take its hints once it has room');
    const after = await storedByNode();
    const added = IDS.reduce((sum, id) => sum + after.get(id)! - before.get(id)!, 0);
    assert.equal(added, 2 * acknowledged, 'two copies of every acknowledged event, none of the refused request');
    assert.deepEqual(await countOf(node('node3'), 'refused-share'), { count: acknowledged, partial: false });
    assert.deepEqual(await countOf(node('node3'), 'refused-whole'), { count: 0, partial: false });
  });
});
