/**
 * What a partial answer says, and forgetting a node, with real processes.
 *
 * Three nodes at replication 1, node3 killed: every kind of answer says which nodes it could not
 * read and which time ranges of which index may lack events (computed here from placement), and
 * a query of an index no node holds is not partial at all.
 *
 * Forgetting, one scenario in one test: node3, removed and killed in a cluster of 5 s buckets, is
 * refused while up or not removed, then forgotten through a node that is not the master:
 * /cluster/status no longer lists it, a query over its old data says partial naming it while a
 * query after its removal is whole, and the id joins again as a new node that is not asked for the
 * old node's keys.
 */
import { strict as assert } from 'assert';
import { execFile } from 'child_process';
import path from 'path';
import { promisify } from 'util';
import { waitUntil } from '../helpers/api';
import { postJson, REPO_ROOT, request, type TestServer } from '../helpers/server';
import { readJobStream } from '../helpers/sse';
import {
  joinClusteredServer,
  startClusteredServers,
  stopClusteredServers,
  storedEvents,
  waitForCaughtUp,
  waitForUp,
  type ClusteredServer,
} from './helpers/clustered-servers';
import { ownersOf } from '../../node/cluster/ring';
import { CURRENT_LAYOUT } from '../../node/cluster/epochs';
import { bucketOf, homePartition } from '../../storage/core/partition';
import { BUCKET_SPAN_MICROS, keysOfRange, PARTITIONS, type RingLayout } from './helpers/placement';
import { futureHour, webRequestEvents } from './helpers/test-events';

const HOUR_MS = 3_600_000;
const run = promisify(execFile);

async function ingest(node: ClusteredServer, events: readonly unknown[]): Promise<void> {
  const answer = await postJson(`${node.api}/ingest`, events);
  assert.equal(answer.status, 200, answer.text);
}

async function exportLines(server: TestServer, body: Record<string, unknown>): Promise<any[]> {
  const response = await request(`${server.api}/query/stream`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(response.status, 200);
  return response.text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

const status = async (node: ClusteredServer): Promise<any> => (await request(`${node.api}/cluster/status`)).body.data;

/** Until `node` sees every member up and asks each for its keys (none catching up): its answers are then whole but for what is lost. */
const waitHealthy = (node: ClusteredServer): Promise<void> =>
  waitUntil(async () => (await status(node)).status === 'healthy', 20_000, `${node.id} to see the cluster healthy`);

describe("cluster: a partial answer in the user's terms", function () {
  this.timeout(120_000);
  const start = futureHour();
  // Two hour buckets: 600 events 12 s apart.
  const events = webRequestEvents(start, 600, 12_000);
  // The query starts half an hour into the first bucket: the ranges are cut to it.
  const fromMs = start + HOUR_MS / 2;
  const toMs = start + 2 * HOUR_MS;
  const range = { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() };
  const ring: RingLayout = { members: ['node1', 'node2', 'node3'], replicationFactor: 1 };
  let nodes: ClusteredServer[] = [];

  before(async () => {
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 1 } });
    await waitForCaughtUp(nodes);
    await ingest(nodes[0]!, events);
    // node1 has heard node3's index names (its heartbeat stats) before node3 goes.
    const onNode3 = await storedEvents(nodes[2]!);
    await waitUntil(
      async () => (await status(nodes[0]!)).nodes.find((node: any) => node.id === 'node3').events === onNode3,
      10_000,
      "node1 to hear node3's counts",
    );
    await nodes[2]!.server.kill();
    await waitForUp(nodes.slice(0, 2), ['node1', 'node2']);
  });
  after(async () => {
    await stopClusteredServers(nodes, true);
  });

  /** node3's keys in the query's buckets, and what they leave out: its buckets, merged where adjacent, cut to the query. */
  function expectedMissing(): { keys: number; ranges: { index: string; from: string; to: string }[] } {
    const mine = keysOfRange(fromMs, toMs, ring).filter((key) => key.owners[0] === 'node3');
    const buckets = [...new Set(mine.map((key) => Number(key.key.split('|')[1])))].sort((a, b) => a - b);
    const ranges: { fromMs: number; toMs: number }[] = [];
    for (const bucket of buckets) {
      const from = Math.max(bucket / 1000, fromMs);
      const to = Math.min((bucket + BUCKET_SPAN_MICROS) / 1000, toMs);
      const last = ranges.at(-1);
      if (last !== undefined && from <= last.toMs) last.toMs = to;
      else ranges.push({ fromMs: from, toMs: to });
    }
    return {
      keys: mine.length,
      ranges: ranges.map((each) => ({ index: 'main', from: new Date(each.fromMs).toISOString(), to: new Date(each.toMs).toISOString() })),
    };
  }

  it('names the node down and the ranges of the index that may lack events, in every kind of answer', async () => {
    const expected = expectedMissing();
    assert.ok(expected.keys > 0, 'node3 owns keys of the range');
    const check = (meta: any, what: string): void => {
      assert.equal(meta.partial, true, what);
      assert.equal(meta.missing_keys, expected.keys, what);
      assert.deepEqual(
        meta.missing,
        { nodes: ['node3'], ranges: expected.ranges, ranges_total: expected.ranges.length, truncated: false },
        what,
      );
    };
    const q = 'from main | stats count()';
    const sync = await postJson(`${nodes[0]!.api}/query`, { ...range, q });
    assert.equal(sync.status, 200, sync.text);
    check(sync.body.meta, 'the synchronous answer');

    const started = await postJson(`${nodes[1]!.api}/query`, { ...range, q, wait: 0 });
    const id: string = started.body.data.job_id;
    let job: any;
    await waitUntil(
      async () => (job = (await request(`${nodes[1]!.api}/query/jobs/${id}`)).body).data.status === 'done',
      10_000,
      `job ${id} done`,
    );
    check(job.meta, 'the job');
    const sse = await readJobStream(`${nodes[1]!.api}/query/jobs/${id}/stream`);
    assert.equal(sse.at(-1)!.event, 'complete');
    check(sse.at(-1)!.data.meta, 'the job stream');

    const lines = await exportLines(nodes[0]!.server, { ...range, q: 'from main' });
    check(lines.at(-1).__meta, 'the export');
  });

  it('does not say partial for an index no node holds, while a node is down', async () => {
    const answer = await postJson(`${nodes[0]!.api}/query`, { ...range, q: 'from nosuchindex | stats count()' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.data.rows, [[0]]);
    assert.equal(answer.body.meta.partial, undefined, JSON.stringify(answer.body.meta));
    assert.equal(answer.body.meta.missing_keys, undefined);
  });
});

describe('cluster: forgetting a removed node', function () {
  this.timeout(120_000);
  // Buckets of 5 s: the old data spans a dozen, and the removal's epoch splits one.
  const set = { 'cluster.replication_factor': 1, 'cluster.bucket_span': '5s' };
  const launcher = path.join(REPO_ROOT, 'scripts', 'trawl');
  let nodes: ClusteredServer[] = [];
  let rejoined: ClusteredServer | null = null;
  const dataFromMs = Date.now() - 60_000;
  let dataToMs = 0;
  /** What the cluster holds before the test (node3 part of it). */
  let total = 0;
  let onNode3 = 0;

  before(async () => {
    nodes = await startClusteredServers(3, { set });
    await waitForCaughtUp(nodes);
    const events = Array.from({ length: 300 }, (_, i) => ({
      event: `old ${i}`,
      time: (dataFromMs + i * 180) / 1000,
      host: `h${i % 7}`,
      source: 'app',
    }));
    dataToMs = dataFromMs + 300 * 180;
    total = events.length;
    await ingest(nodes[0]!, events);
    onNode3 = await storedEvents(nodes[2]!);
    assert.ok(onNode3 > 0 && onNode3 < total, `node3 holds some of the events: ${onNode3}`);
  });
  after(async () => {
    await stopClusteredServers(rejoined === null ? nodes : [...nodes, rejoined], true);
  });

  const forget = (via: ClusteredServer, id: string) => request(`${via.api}/cluster/nodes/${id}/forget`, { method: 'POST' });
  const count = async (via: ClusteredServer, fromMs: number, toMs: number): Promise<any> => {
    const answer = await postJson(`${via.api}/query`, {
      q: 'from main | stats count()',
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
    });
    assert.equal(answer.status, 200, answer.text);
    return { n: answer.body.data.rows[0][0], meta: answer.body.meta };
  };

  it("refuses a node not removed, or up; forgets it once down (scripts/trawl through a node that is not the master): no longer listed, its old data partial, later queries whole; the id joins again as a new node, not asked for the forgotten node's keys", async () => {
    // Refused: a node that is not removed, one that is no member.
    const notRemoved = await forget(nodes[1]!, 'node2');
    assert.equal(notRemoved.status, 400, notRemoved.text);
    assert.equal(notRemoved.body.error.code, 'VALIDATION_ERROR');
    assert.match(notRemoved.body.error.message, /node "node2" is not removed: remove it first/);
    const unknown = await forget(nodes[0]!, 'node9');
    assert.equal(unknown.status, 404, unknown.text);

    // Removed, but up: refused.
    const removed = await request(`${nodes[0]!.api}/cluster/nodes/node3/remove`, { method: 'POST' });
    assert.equal(removed.status, 200, removed.text);
    /** When node3's removal took effect: the ring epoch without it places data from then on. */
    const effectiveMs = Date.parse(removed.body.data.effective_from);
    await waitUntil(() => Date.now() > effectiveMs, 30_000, 'the removal to take effect');
    const up = await forget(nodes[1]!, 'node3');
    assert.equal(up.status, 400, up.text);
    assert.match(
      up.body.error.message,
      /node "node3" is up \(or not yet seen down, within cluster.failure_timeout\): only a node that is down can be forgotten/,
    );

    // Down: forgotten.
    await nodes[2]!.server.kill();
    await waitForUp(nodes.slice(0, 2), ['node1', 'node2']);
    const { stdout } = await run(process.execPath, [
      launcher,
      'cluster',
      'forget',
      'node3',
      '--server',
      nodes[1]!.api.replace('/api/v1', ''),
    ]);
    assert.match(stdout, /node node3 forgotten/);
    for (const node of nodes.slice(0, 2)) {
      await waitUntil(
        async () => (await status(node)).nodes.map((each: any) => each.id).join() === 'node1,node2',
        10_000,
        `${node.id} to list node1 and node2 alone`,
      );
      // A forgotten node does not keep the cluster degraded.
      await waitHealthy(node);
    }
    // Its old data: partial, naming it; what the others hold is counted.
    let stored = total;
    const old = await count(nodes[0]!, dataFromMs, dataToMs);
    assert.equal(old.meta.partial, true);
    assert.deepEqual(old.meta.missing.nodes, ['node3']);
    assert.equal(old.n, stored - onNode3);
    // From its removal on: whole.
    const later = await count(nodes[1]!, effectiveMs, Date.now());
    assert.equal(later.meta.partial, undefined, JSON.stringify(later.meta));
    // A late event of its old buckets: refused where it was the only owner, stored elsewhere.
    const at = (dataFromMs + 1_000) / 1000;
    const ownerOf = (host: string): string => {
      const key = { index: 'main', bucket: bucketOf(at * 1_000_000, 5_000_000), partition: homePartition(`${host}\u0000app`, PARTITIONS) };
      return ownersOf(key, [{ epoch: 0, fromMicros: 0, members: ['node1', 'node2', 'node3'], layout: CURRENT_LAYOUT }], 1)[0]!;
    };
    const hosts = Array.from({ length: 50 }, (_, i) => `late-${i}`);
    const lateEvent = (host: string) => [{ event: `late from ${host}`, time: at, host, source: 'app' }];
    const refused = await postJson(`${nodes[0]!.api}/ingest`, lateEvent(hosts.find((host) => ownerOf(host) === 'node3')!));
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.error.code, 'SHARD_UNAVAILABLE');
    assert.match(refused.body.error.message, /its owners there were forgotten/);
    const late = await postJson(`${nodes[0]!.api}/ingest`, lateEvent(hosts.find((host) => ownerOf(host) === 'node2')!));
    assert.equal(late.status, 200, late.text);
    stored += 1;
    // Forgotten twice: it is no member any more.
    assert.equal((await forget(nodes[0]!, 'node3')).status, 404);

    // The id joins again as a new node, which is not asked for the forgotten node's keys.
    rejoined = await joinClusteredServer(nodes.slice(0, 2), 'node3', { set });
    await waitForUp([...nodes.slice(0, 2), rejoined], ['node1', 'node2', 'node3']);
    await waitForCaughtUp([nodes[0]!, rejoined]);
    await waitHealthy(nodes[0]!);
    await waitHealthy(rejoined);
    const listed = (await status(nodes[0]!)).nodes.find((each: any) => each.id === 'node3');
    assert.equal(listed.removed, false);
    for (const via of [nodes[0]!, rejoined]) {
      const old = await count(via, dataFromMs, dataToMs);
      assert.equal(old.meta.partial, true, `through ${via.id}: the new node3 does not answer for the old one's keys`);
      assert.deepEqual(old.meta.missing.nodes, ['node3'], `through ${via.id}`);
      assert.equal(old.n, stored - onNode3, `through ${via.id}`);
    }
  });
});
