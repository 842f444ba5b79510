/**
 * Distributed queries over real clustered processes. Three nodes at replication factor 2 hold
 * each event twice (ingested once, through node 1, which writes every owner): each key is asked of
 * one owner, and every node answers exactly as one unclustered node holding the events does. A
 * node killed with SIGKILL leaves the answers exact (its keys are asked of the other owners).
 */
import { strict as assert } from 'assert';
import { PeerClients } from '../../node/cluster/grpc/peers';
import type * as wire from '../../node/cluster/grpc/messages';
import { SHARD_QUERY } from '../../node/cluster/grpc/proto';
import { FINAL_PROGRESS_MINOR } from '../../node/cluster/protocol';
import { waitUntil } from '../helpers/api';
import { postJson, request, TestServer } from '../helpers/server';
import { readJobStream } from '../helpers/sse';
import { startClusteredServers, stopClusteredServers, waitForCaughtUp, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { keysOfRange, placeRequest, type RingLayout } from './helpers/placement';
import { shardFragment } from './helpers/shard-fragment';
import { futureHour, webRequestEvents, type WebRequestEvent } from './helpers/test-events';

const HOUR_MS = 3_600_000;

/** The value at quantile q of the sorted values (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

async function ingestThrough(server: TestServer, events: readonly unknown[]): Promise<void> {
  for (let start = 0; start < events.length; start += 20_000) {
    const response = await postJson(`${server.api}/ingest`, events.slice(start, start + 20_000));
    assert.equal(response.status, 200, JSON.stringify(response.body));
  }
}

/** The NDJSON lines of POST /query/stream. */
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

/**
 * Hashing each event 100 times over: seconds of work on every node, so a cancel comes while all
 * run. A scan sees its abort between units of work, so a shard stops within a unit (about a second here).
 */
const HASHED = `from heavy | extend h0 = _raw, ${Array.from({ length: 100 }, (_, i) => `h${i + 1} = sha256(concat(h${i}, _raw))`).join(', ')}`;
const HEAVY = `${HASHED} | stats dc(h100)`;

describe('cluster: distributed queries at replication factor 2', function () {
  this.timeout(180_000);
  const start = futureHour();
  // Two buckets (1h each): 600 events 12 s apart.
  const events = webRequestEvents(start, 600, 12_000);
  const range = { from: new Date(start - HOUR_MS).toISOString(), to: new Date(start + 3 * HOUR_MS).toISOString() };
  const heavy = Array.from({ length: 60_000 }, (_, i) => ({
    index: 'heavy',
    event: `line ${i} user=u${i % 977} some padding text to make the row longer ${i * 7919}`,
    time: (start + i * 100) / 1000,
    host: `h${i % 50}`,
    source: 'load',
  }));
  let nodes: ClusteredServer[];
  let single: TestServer;

  before(async () => {
    const set = { 'cluster.replication_factor': 2, 'cluster.partitions': 6 };
    [nodes, single] = await Promise.all([startClusteredServers(3, { set }), TestServer.start()]);
    await Promise.all([ingestThrough(nodes[0]!.server, events), ingestThrough(single, events)]);
    await ingestThrough(nodes[0]!.server, heavy);
  });
  after(async () => {
    await Promise.all([stopClusteredServers(nodes ?? []), single?.stop()]);
  });

  const query = (server: TestServer, body: Record<string, unknown>) => postJson(`${server.api}/query`, { ...range, ...body });

  /** Asks every node and the single node; each answer must equal the single node's, whole. */
  async function sameEverywhere(q: string, up: readonly ClusteredServer[] = nodes): Promise<any> {
    const expected = await query(single, { q, limit: 1000 });
    assert.equal(expected.status, 200, JSON.stringify(expected.body));
    for (const node of up) {
      const answer = await query(node.server, { q, limit: 1000 });
      assert.equal(answer.status, 200, `${node.id}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(answer.body.data, expected.body.data, `${q} through ${node.id}`);
      assert.equal(answer.body.meta.partial, undefined, `${node.id} answered partial`);
      // Rows read sum over the shards: a whole-range stats reads each event once, on one node (a head may stop early, a where skip blocks).
      if (!/head|where/.test(q)) assert.equal(answer.body.meta.scanned, events.length, `${q} through ${node.id}: rows read`);
    }
    return expected.body.data;
  }

  it('answers count, stats by, head and sort | head through every node as one node does', async () => {
    const count = await sameEverywhere('from main | stats count() as n');
    assert.deepEqual(count.rows, [[600]]);
    // An index glob: the coordinator asks the nodes which keys they hold instead of placing them.
    assert.deepEqual((await sameEverywhere('from ma* | stats count() as n')).rows, [[600]]);
    const byHost = await sameEverywhere('from main | stats count() as n, avg(ms), max(ms) by host, source');
    assert.equal(byHost.rows.length, 10);
    const newest = await sameEverywhere('from main | head 7');
    assert.deepEqual(
      newest.events.map((event: any) => event._raw),
      [...events]
        .reverse()
        .slice(0, 7)
        .map((event) => event.event),
    );
    const slowest = await sameEverywhere('from main | sort ms desc, _raw asc | head 5 | keep _raw, ms');
    const sorted = [...events].sort((a, b) => b.fields.ms - a.fields.ms || (a.event < b.event ? -1 : 1)).slice(0, 5);
    assert.deepEqual(
      slowest.events.map((event: any) => event._raw),
      sorted.map((event) => event.event),
    );
    const errors = await sameEverywhere('from main | where status = 500');
    assert.equal(errors.total, 120);
  });

  it("hands a fragment's last counters on beside its result to a caller of 1.7, and in a progress message before it to an older one", async () => {
    const peers = new PeerClients();
    try {
      const callee = nodes[1]!.grpc;
      const window = { from_micros: (start - HOUR_MS) * 1000, to_micros: (start + 3 * HOUR_MS) * 1000 };
      const version = (minor: number): wire.ProtocolVersion => ({ major: 1, minor });
      const { keys } = await peers.call(
        callee,
        SHARD_QUERY.Keys,
        { protocol_version: version(7), index_patterns: ['main'], ...window },
        5_000,
      );
      assert.ok(keys.length > 0, 'node 2 holds keys of main');
      /** The messages of one Query call from a caller of protocol 1.minor. */
      const messagesOf = (minor: number): Promise<wire.ShardQueryMessage[]> =>
        new Promise((resolve, reject) => {
          const request = shardFragment('from main | stats count() by host', start - HOUR_MS, start + 3 * HOUR_MS, {
            protocol_version: version(minor),
            keys,
          });
          const method = SHARD_QUERY.Query;
          const call = peers
            .client(callee)
            .makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, request, {
              deadline: Date.now() + 30_000,
            });
          const messages: wire.ShardQueryMessage[] = [];
          call.on('data', (message: wire.ShardQueryMessage) => messages.push(message));
          call.on('error', reject);
          call.on('end', () => resolve(messages));
        });
      // A flush or a merge on node 2 between the two calls changes what they read: the pair is
      // asked again until both calls saw the same segments and buffer.
      let older: wire.ShardQueryMessage[] = [];
      let newer: wire.ShardQueryMessage[] = [];
      const stateOf = (progress: wire.ShardQueryProgress | null | undefined) =>
        progress ? `${progress.segments_total} segments, ${progress.buffered_events} buffered` : 'none';
      await waitUntil(
        async () => {
          older = await messagesOf(FINAL_PROGRESS_MINOR - 1);
          newer = await messagesOf(FINAL_PROGRESS_MINOR);
          return stateOf(older.at(-2)?.progress) === stateOf(newer.at(-1)?.final_progress);
        },
        20_000,
        'two calls that read the same storage',
      );
      for (const messages of [older, newer]) assert.equal(messages.at(-1)?.body, 'result');
      const lastOfOlder = older.at(-2);
      assert.equal(lastOfOlder?.body, 'progress', 'an older caller gets the last counters just before the result');
      assert.equal(older.at(-1)!.final_progress, null);
      const folded = newer.at(-1)!.final_progress;
      assert.ok(folded, 'a caller of 1.7 reads the last counters beside the result');
      // Node 2 holds some of the events, each stored on two of the three nodes: some rows, not all copies.
      assert.ok(folded.rows_read > 0 && folded.rows_read < events.length * 2);
      assert.equal(folded.rows_read, lastOfOlder.progress!.rows_read);
      assert.equal(folded.segments_total, lastOfOlder.progress!.segments_total);
      assert.equal(folded.segments_scanned, lastOfOlder.progress!.segments_scanned);
    } finally {
      peers.close();
    }
  });

  it('answers GET /histogram through every node as one node does', async () => {
    const params = new URLSearchParams({
      from: new Date(start).toISOString(),
      to: new Date(start + 2 * HOUR_MS).toISOString(),
      q: 'from main | where status = 500',
    });
    const expected = await request(`${single.api}/histogram?${params}`);
    assert.equal(expected.status, 200, expected.text);
    assert.equal(expected.body.data.total, events.filter((event) => event.fields.status === 500).length);
    for (const node of nodes) {
      const answer = await request(`${node.server.api}/histogram?${params}`);
      assert.equal(answer.status, 200, `${node.id}: ${answer.text}`);
      assert.deepEqual(answer.body.data, expected.body.data, `through ${node.id}`);
      assert.equal(answer.body.meta.partial, undefined);
    }
  });

  it('answers percentiles within their bound through every node', async () => {
    const values = events.map((event) => event.fields.ms).sort((a, b) => a - b);
    for (const node of nodes) {
      const answer = await query(node.server, { q: 'from main | stats p50(ms), p95(ms)' });
      assert.equal(answer.status, 200);
      const [p50, p95] = answer.body.data.rows[0];
      for (const [got, q] of [
        [p50, 0.5],
        [p95, 0.95],
      ] as const) {
        const exact = quantile(values, q);
        assert.ok(Math.abs(got - exact) <= exact * 0.01 + 1e-9, `${node.id}: p${q * 100} ${got}, exactly ${exact}`);
      }
    }
  });

  it('exports newest first from all shards through every node (NDJSON)', async () => {
    const body = { ...range, q: 'from main | where status = 200' };
    const expected = await exportLines(single, body);
    const expectedMeta = expected.pop();
    assert.equal(expectedMeta.__meta.total, 480);
    for (const node of nodes) {
      const lines = await exportLines(node.server, body);
      const meta = lines.pop();
      assert.equal(meta.__meta.total, 480, node.id);
      assert.equal(meta.__meta.partial, undefined, node.id);
      assert.deepEqual(lines, expected.slice(0), node.id);
    }
  });

  it('forwards GET, DELETE and the SSE stream of a job to the node its id names', async () => {
    const started = await query(nodes[1]!.server, { q: 'from main | stats count() as n by host', wait: 0 });
    assert.equal(started.status, 202);
    const id: string = started.body.data.job_id;
    assert.match(id, /^qry_node2_/);
    for (const node of [nodes[0]!, nodes[2]!]) {
      let job: any;
      await waitUntil(
        async () => {
          job = (await request(`${node.server.api}/query/jobs/${id}`)).body.data;
          return job.status === 'done';
        },
        10_000,
        `job ${id} done, seen through ${node.id}`,
      );
      assert.equal(job.job_id, id);
      assert.equal(job.results.rows.length, 5);
      const sse = await readJobStream(`${node.server.api}/query/jobs/${id}/stream`);
      assert.equal(sse.at(-1)!.event, 'complete');
      assert.deepEqual(sse.at(-1)!.data.data, job.results);
    }
    // The list of jobs on any node holds every node's jobs.
    for (const node of nodes) {
      const listed = await request(`${node.server.api}/query/jobs?status=done`);
      assert.ok(
        listed.body.data.jobs.some((job: { job_id: string }) => job.job_id === id),
        `${node.id} lists the job node2 ran`,
      );
      assert.equal(listed.body.meta, undefined, 'every node answered');
    }
    // DELETE of a finished job, through another node: the node that ran it answers (nothing to cancel).
    const deleted = await request(`${nodes[2]!.server.api}/query/jobs/${id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.deepEqual([deleted.body.data.job_id, deleted.body.data.status, deleted.body.data.canceled], [id, 'done', false]);
    // An id no node holds is 404 on every node, as is one naming a node that is not a member.
    // The random part is the last 12 characters (base64url: it may hold '_' too).
    const unheld = `${id.slice(0, -12)}${id.endsWith('AAAAAAAAAAAA') ? 'BBBBBBBBBBBB' : 'AAAAAAAAAAAA'}`;
    for (const missing of [unheld, 'qry_nobody_AAAAAAAAAAAA']) {
      const answer = await request(`${nodes[0]!.server.api}/query/jobs/${missing}`);
      assert.equal(answer.status, 404, missing);
      assert.equal(answer.body.error.code, 'NOT_FOUND');
    }
  });

  it('a cluster query canceled through another node stops every shard', async () => {
    const running = 'trawl_shard_fragments_running';
    const canceledBefore = await Promise.all(nodes.map((node) => metricValue(node, 'trawl_shard_fragments_total{outcome="canceled"}')));
    const started = await query(nodes[0]!.server, { q: HEAVY, wait: 0 });
    assert.equal(started.status, 202);
    const id: string = started.body.data.job_id;
    await Promise.all(
      nodes.map((node) => waitUntil(async () => (await metricValue(node, running)) >= 1, 10_000, `${node.id} to run a fragment`)),
    );
    // Canceled through another node: the DELETE is forwarded to node1, whose job it is.
    const canceled = await request(`${nodes[1]!.server.api}/query/jobs/${id}`, { method: 'DELETE' });
    assert.equal(canceled.body.data.status, 'canceled');
    assert.equal(canceled.body.data.canceled, true);
    for (const [i, node] of nodes.entries()) {
      await waitUntil(async () => (await metricValue(node, running)) === 0, 15_000, `${node.id} to stop its fragment`);
      assert.ok(
        (await metricValue(node, 'trawl_shard_fragments_total{outcome="canceled"}')) > canceledBefore[i]!,
        `${node.id} counted its fragment canceled`,
      );
    }
  });

  it('an export whose client leaves is canceled, and no shard is left working on it', async () => {
    const running = 'trawl_shard_fragments_running';
    // Ten megabytes of rows: more than the sockets hold, so the export waits for its client.
    const q = `${HASHED} | where h100 != "x" | keep _raw, index, h1, h2, h100`;
    const client = new AbortController();
    const response = await fetch(`${nodes[0]!.server.api}/query/stream`, {
      method: 'POST',
      body: JSON.stringify({ ...range, q }),
      headers: { 'content-type': 'application/json' },
      signal: client.signal,
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n')) text += Buffer.from((await reader.read()).value!).toString();
    assert.equal(JSON.parse(text.slice(0, text.indexOf('\n'))).index, 'heavy');
    const jobs = (await request(`${nodes[0]!.server.api}/query/jobs?status=running`)).body.data.jobs;
    assert.equal(jobs.length, 1, 'the export is still running');
    client.abort();
    await waitUntil(
      async () => (await request(`${nodes[0]!.server.api}/query/jobs/${jobs[0].job_id}`)).body.data.status === 'canceled',
      5_000,
      'the export job canceled',
    );
    // A scan that waited on the client when it left must not hang on its closed sessions.
    for (const node of nodes)
      await waitUntil(async () => (await metricValue(node, running)) === 0, 15_000, `${node.id} to end its fragment`);
  });

  it('counts fragments by outcome on the coordinator (Prometheus)', async () => {
    const ok = 'trawl_shard_query_duration_seconds_count{outcome="ok"}';
    const before = await metricValue(nodes[1]!, ok);
    await query(nodes[1]!.server, { q: 'from main | stats count()' });
    // One fragment a node: each of the three answered.
    assert.equal((await metricValue(nodes[1]!, ok)) - before, 3);
  });

  /**
   * Starts the heavy count through node1 and, once node3 runs its fragment, does `fail` to node3;
   * the job must still count every event once, not partial, with node3's keys asked again.
   */
  async function countsExactlyThough(fail: () => Promise<void>): Promise<void> {
    const retriedBefore = await metricValue(nodes[0]!, 'trawl_shard_fragments_retried_total');
    const started = await query(nodes[0]!.server, { q: `${HASHED} | stats count() as n`, wait: 0 });
    assert.equal(started.status, 202);
    const id: string = started.body.data.job_id;
    await waitUntil(async () => (await metricValue(nodes[2]!, 'trawl_shard_fragments_running')) >= 1, 10_000, 'node3 to run its fragment');
    await fail();
    let job: any;
    await waitUntil(
      async () => {
        job = (await request(`${nodes[0]!.server.api}/query/jobs/${id}`)).body;
        return job.data.status !== 'running';
      },
      60_000,
      `job ${id} to end`,
    );
    assert.equal(job.data.status, 'done', JSON.stringify(job));
    assert.deepEqual(job.data.results.rows, [[heavy.length]], 'every event counted once');
    assert.equal(job.meta?.partial, undefined, 'not partial: every key had another live owner');
    assert.ok((await metricValue(nodes[0]!, 'trawl_shard_fragments_retried_total')) > retriedBefore, "node3's keys were asked again");
  }

  it('a node killed in the middle of its fragment has its keys read again by their other owners: the answer stays exact', async () => {
    await countsExactlyThough(() => nodes[2]!.server.kill());
    await nodes[2]!.restart();
    await waitForUp(nodes, ['node1', 'node2', 'node3']);
    // Until it heard every member's hint report it refuses fragments, and the next test needs it to run one.
    await waitForCaughtUp([nodes[2]!]);
  });

  it('a node that stops answering in the middle of its fragment (SIGSTOP) has its keys read again once it is silent for cluster.failure_timeout', async () => {
    // Stopped, not dead: its connections stay open and membership thinks it up for a while.
    const frozen = nodes[2]!.server.process;
    try {
      await countsExactlyThough(async () => void frozen.kill('SIGSTOP'));
    } finally {
      frozen.kill('SIGCONT');
    }
    await waitForUp(nodes, ['node1', 'node2', 'node3']);
  });

  it('a coordinator that itself stands still (SIGSTOP) longer than cluster.failure_timeout counts no other node as failed when it wakes', async () => {
    // The other nodes go on answering into its sockets while it stands still: their messages
    // wait there, unread, and their silence is its own.
    const coordinator = nodes[0]!;
    // A node stopped by the test before catches up first, refusing fragments meanwhile.
    await waitForCaughtUp(nodes);
    const retriedBefore = await metricValue(coordinator, 'trawl_shard_fragments_retried_total');
    const started = await query(coordinator.server, { q: `${HASHED} | stats count() as n`, wait: 0 });
    assert.equal(started.status, 202);
    const id: string = started.body.data.job_id;
    const running = async (): Promise<number> => {
      const counts = await Promise.all(nodes.slice(1).map((peer) => metricValue(peer, 'trawl_shard_fragments_running')));
      return counts.reduce((sum, count) => sum + count, 0);
    };
    await waitUntil(async () => (await running()) >= 1, 10_000, 'the other nodes to run their fragments');
    coordinator.server.process.kill('SIGSTOP');
    try {
      // Stopped past the failure timeout: the other nodes see it down.
      await waitForUp(nodes.slice(1), ['node2', 'node3']);
    } finally {
      coordinator.server.process.kill('SIGCONT');
    }
    let job: any;
    await waitUntil(
      async () => {
        job = (await request(`${coordinator.server.api}/query/jobs/${id}`)).body;
        return job.data.status !== 'running';
      },
      60_000,
      `job ${id} to end`,
    );
    assert.equal(job.data.status, 'done', JSON.stringify(job));
    const retried = (await metricValue(coordinator, 'trawl_shard_fragments_retried_total')) - retriedBefore;
    assert.deepEqual(
      job.data.results.rows,
      [[heavy.length]],
      `every event counted once (${retried} fragments asked again; ${JSON.stringify(job.meta)})`,
    );
    assert.equal(job.meta?.partial, undefined, JSON.stringify(job.meta));
    assert.equal(retried, 0, 'no fragment asked again');
    await waitForUp(nodes, ['node1', 'node2', 'node3']);
    await waitForCaughtUp([coordinator]);
  });

  it('stays exact when a node is killed (its keys are asked of the other owners)', async () => {
    const onKilled = (await query(nodes[2]!.server, { q: 'from main | stats count()' })).body.meta.query_id;
    await nodes[2]!.server.kill();
    // At once (the node is still thought up) and once the others see it down.
    await sameEverywhere('from main | stats count() as n by host', nodes.slice(0, 2));
    await waitForUp(nodes.slice(0, 2), ['node1', 'node2']);
    await sameEverywhere('from main | stats count() as n by host', nodes.slice(0, 2));
    await sameEverywhere('from main | head 3', nodes.slice(0, 2));
    // The list of jobs says it lacks the killed node's.
    const listed = await request(`${nodes[0]!.server.api}/query/jobs`);
    assert.deepEqual(listed.body.meta, { partial: true, missing_nodes: ['node3'] });
    assert.ok(!listed.body.data.jobs.some((job: { job_id: string }) => job.job_id === onKilled));
    // A job of the killed node: asked through another node, 503 naming it.
    const lost = await request(`${nodes[0]!.server.api}/query/jobs/${onKilled}`);
    assert.equal(lost.status, 503);
    assert.equal(lost.body.error.code, 'NODE_UNAVAILABLE');
    assert.match(lost.body.error.message, /node3/);
  });
});

/**
 * Two nodes at replication factor 1: each event is ingested through the one node that owns its
 * key (computed here, placement.ts), so each node holds exactly its own keys. With both up every
 * answer is whole; with one killed, the other answers for its own keys and says the answer is
 * partial, with the count of keys in range the killed node alone owns.
 */
describe('cluster: distributed queries at replication factor 1', function () {
  this.timeout(120_000);
  const start = futureHour();
  const events = webRequestEvents(start, 600, 12_000);
  const range = { from: new Date(start).toISOString(), to: new Date(start + 2 * HOUR_MS).toISOString() };
  const ring: RingLayout = { members: ['node1', 'node2'], replicationFactor: 1, partitions: 4 };
  // Placed as one request: each (host, source) pair has 60 events, under SPILL_EVENTS, so none spills.
  const placed = placeRequest(events, ring);
  const owners = new Map(events.map((event, i) => [event, placed[i]!.owners[0]!]));
  const ownerOf = (event: WebRequestEvent): string => owners.get(event)!;
  let nodes: ClusteredServer[];

  before(async () => {
    nodes = await startClusteredServers(2, { set: { 'cluster.replication_factor': 1, 'cluster.partitions': 4 } });
    for (const node of nodes) {
      const share = events.filter((event) => ownerOf(event) === node.id);
      // Sent alone, a node's share places as it did within all the events.
      assert.ok(
        placeRequest(share, ring).every((event) => event.owners[0] === node.id),
        `${node.id}'s share is its own as sent`,
      );
      await ingestThrough(node.server, share);
    }
  });
  after(async () => {
    await stopClusteredServers(nodes ?? []);
  });

  const query = (server: TestServer, body: Record<string, unknown>) => postJson(`${server.api}/query`, { ...range, ...body });

  it('answers whole through either node while both are up', async () => {
    const held = new Set(events.map(ownerOf));
    assert.deepEqual([...held].sort(), ['node1', 'node2'], 'the events land on both nodes');
    const expected = [...events]
      .reverse()
      .slice(0, 4)
      .map((event) => event.event);
    for (const node of nodes) {
      const count = await query(node.server, { q: 'from main | stats count() as n by source' });
      assert.deepEqual(
        count.body.data.rows,
        [
          ['app', 300],
          ['nginx', 300],
        ],
        node.id,
      );
      assert.equal(count.body.meta.partial, undefined);
      const newest = await query(node.server, { q: 'from main | head 4' });
      assert.deepEqual(
        newest.body.data.events.map((event: any) => event._raw),
        expected,
        node.id,
      );
    }
  });

  it('says partial, with the keys the killed owner alone held, in every kind of answer', async () => {
    const missing = keysOfRange(start, start + 2 * HOUR_MS, ring).filter((key) => key.owners[0] === 'node2').length;
    assert.ok(missing > 0, 'node2 owns some keys of the range');
    const kept = events.filter((event) => ownerOf(event) === 'node1');
    await nodes[1]!.server.kill();
    const q = 'from main | stats count() as n';
    const check = (meta: any, what: string): void => {
      assert.equal(meta.partial, true, what);
      assert.equal(meta.missing_keys, missing, what);
    };
    const sync = await query(nodes[0]!.server, { q });
    assert.equal(sync.status, 200);
    assert.deepEqual(sync.body.data.rows, [[kept.length]]);
    check(sync.body.meta, 'the synchronous answer');

    const started = await query(nodes[0]!.server, { q, wait: 0 });
    const id: string = started.body.data.job_id;
    let job: any;
    await waitUntil(
      async () => {
        job = (await request(`${nodes[0]!.server.api}/query/jobs/${id}`)).body;
        return job.data.status === 'done';
      },
      10_000,
      `job ${id} done`,
    );
    check(job.meta, 'the job');
    const sse = await readJobStream(`${nodes[0]!.server.api}/query/jobs/${id}/stream`);
    assert.equal(sse.at(-1)!.event, 'complete');
    check(sse.at(-1)!.data.meta, 'the job stream');

    const lines = await exportLines(nodes[0]!.server, { ...range, q: 'from main' });
    const meta = lines.pop().__meta;
    check(meta, 'the export');
    assert.equal(meta.total, kept.length);
    assert.ok((await metricValue(nodes[0]!, 'trawl_query_missing_keys_total')) >= 3 * missing, 'the missing keys are counted (Prometheus)');
    assert.deepEqual(
      lines.map((line) => line._raw),
      [...kept].reverse().map((event) => event.event),
      'the export, newest first',
    );
  });
});
