/**
 * Queries under faults and hostile fragments, on three real processes at replication factor 2.
 * An export through node 1 whose shard stops (SIGSTOP) or dies (SIGKILL) in the middle never
 * crashes the coordinator: the answer is the whole export (every event exactly once) or ends with
 * one error line and nothing after it. Query fragments sent straight to node 3's gRPC port, from
 * this process (no member), share its query slots with HTTP queries (the excess is refused
 * RESOURCE_EXHAUSTED / query-slots), stop their work within a second once canceled or once their
 * connection closes, and bad ones are refused INVALID_ARGUMENT.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import http from 'http';
import http2 from 'http2';
import * as grpc from '@grpc/grpc-js';
import { PeerCallError, PeerClients } from '../../node/cluster/grpc/peers';
import type * as wire from '../../node/cluster/grpc/messages';
import { SHARD_QUERY } from '../../node/cluster/grpc/proto';
import { protocolVersion } from '../../node/cluster/grpc/wire';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { shardFragment } from './helpers/shard-fragment';
import { futureHour } from './helpers/test-events';

const HOUR_MS = 3_600_000;
const SLOTS = 4;
/** Each event hashed `rounds` times over. */
const hashed = (index: string, rounds: number): string =>
  `from ${index} | extend h0 = _raw, ${Array.from({ length: rounds }, (_, i) => `h${i + 1} = sha256(concat(h${i}, _raw))`).join(', ')}`;
/** Seconds of work on a node, so fragments are running when the test acts. */
const HEAVY = `${hashed('heavy', 100)} | stats dc(h100)`;
/** An export whose shards take seconds to stream their rows: a shard stopped after the first rows is stopped in the middle. */
const SLOW_EXPORT = `${hashed('exp', 80)} | keep id`;

/** The process's CPU seconds so far (user and system, all threads). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface ExportOutcome {
  lines: any[];
  /** Lines that were not JSON (a cut connection). */
  broken: number;
}

/** POST /query/stream read as it comes; `onFirstData` runs once, with the response paused until it resolves. */
function exportStream(node: ClusteredServer, body: Record<string, unknown>, onFirstData: () => Promise<void>): Promise<ExportOutcome> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${node.api}/query/stream`);
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        assert.equal(response.statusCode, 200);
        let text = '';
        let first = true;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (!first) return;
          first = false;
          response.pause();
          onFirstData().then(() => response.resume(), reject);
        });
        const done = (): void => {
          const lines: any[] = [];
          let broken = 0;
          for (const line of text.split('\n').filter((each) => each !== '')) {
            try {
              lines.push(JSON.parse(line));
            } catch {
              broken++;
            }
          }
          resolve({ lines, broken });
        };
        response.on('end', done);
        response.on('error', done);
        response.on('aborted', done);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('cluster: queries under faults and hostile fragments', function () {
  this.timeout(300_000);
  const start = futureHour();
  const range = { from: new Date(start - HOUR_MS).toISOString(), to: new Date(start + 3 * HOUR_MS).toISOString() };
  const EXPORTED = 40_000;
  const exported = Array.from({ length: EXPORTED }, (_, i) => ({
    index: 'exp',
    event: `export ${i} with some padding text so that the rows take a while to write ${i * 7919}`,
    time: (start + i * 150) / 1000,
    host: `h${i % 40}`,
    source: 'exp',
    fields: { id: i },
  }));
  const heavy = Array.from({ length: 40_000 }, (_, i) => ({
    index: 'heavy',
    event: `line ${i} user=u${i % 977} some padding text to make the row longer ${i * 7919}`,
    time: (start + i * 150) / 1000,
    host: `h${i % 50}`,
    source: 'load',
  }));
  let nodes: ClusteredServer[];
  const peers = new PeerClients(1000);

  before(async () => {
    const set = { 'cluster.replication_factor': 2, 'cluster.partitions': 6 };
    nodes = await startClusteredServers(3, {
      set,
      setForNode: (i): Record<string, number> => (i === 2 ? { 'query.max_concurrent': SLOTS } : {}),
    });
    for (const events of [exported, heavy]) {
      for (let from = 0; from < events.length; from += 20_000) {
        const response = await postJson(`${nodes[0]!.api}/ingest`, events.slice(from, from + 20_000));
        assert.equal(response.status, 200, JSON.stringify(response.body));
      }
    }
  });
  after(async () => {
    peers.close();
    await stopClusteredServers(nodes ?? []);
  });

  const fragment = (overrides: Partial<wire.ShardQueryRequest>): wire.ShardQueryRequest =>
    shardFragment(HEAVY, start - HOUR_MS, start + 3 * HOUR_MS, overrides);

  /** A Query call to node 3; resolves with how it ended (its status and refusal, null when it ended well). */
  function ask(
    client: grpc.Client,
    request: wire.ShardQueryRequest,
  ): { call: grpc.ClientReadableStream<wire.ShardQueryMessage>; ended: Promise<PeerCallError | null> } {
    const method = SHARD_QUERY.Query;
    const call = client.makeServerStreamRequest(method.path, method.requestSerialize, method.responseDeserialize, request, {
      deadline: Date.now() + 120_000,
    });
    const ended = new Promise<PeerCallError | null>((resolve) => {
      call.on('data', () => undefined);
      call.on('error', (error: grpc.ServiceError) => resolve(PeerCallError.from(nodes[2]!.grpc, error)));
      call.on('end', () => resolve(null));
    });
    return { call, ended };
  }

  async function heavyKeys(): Promise<string[]> {
    const request = {
      protocol_version: protocolVersion(),
      index_patterns: ['heavy'],
      from_micros: (start - HOUR_MS) * 1000,
      to_micros: (start + 3 * HOUR_MS) * 1000,
    };
    const { keys } = await peers.call(nodes[2]!.grpc, SHARD_QUERY.Keys, request, 5_000);
    assert.ok(keys.length > 0);
    return keys;
  }

  /** Waits until node 3's CPU use falls under a fifth of a core for a second, at most `withinMs` after now. */
  async function settles(withinMs: number): Promise<number> {
    const pid = nodes[2]!.server.process.pid!;
    const since = Date.now();
    let used = Infinity;
    while (Date.now() - since < withinMs) {
      const before = cpuSeconds(pid);
      await new Promise((resolve) => setTimeout(resolve, 500));
      used = (cpuSeconds(pid) - before) / 0.5;
      if (used < 0.2) return Date.now() - since;
    }
    assert.fail(`node 3 still used ${Math.round(used * 100)}% CPU ${withinMs} ms after its fragments were canceled`);
  }

  /** Waits until node 3 runs no fragment; the ms it took from `since`. */
  async function fragmentsStopped(since: number): Promise<number> {
    await waitUntil(
      async () => (await metricValue(nodes[2]!, 'trawl_shard_fragments_running')) === 0,
      10_000,
      'node 3 to stop its fragments',
    );
    return Date.now() - since;
  }

  it("fragments share the node's query slots with HTTP queries, and stop within a second once canceled", async () => {
    const keys = await heavyKeys();
    const client = new grpc.Client(nodes[2]!.grpc, grpc.credentials.createInsecure());
    const calls = Array.from({ length: SLOTS * 3 }, () => ask(client, fragment({ keys })));
    try {
      // The slots fill at once; every fragment past them is refused.
      let refused: PeerCallError[] = [];
      await waitUntil(
        async () => {
          const ended = await Promise.all(calls.map((each) => Promise.race([each.ended, Promise.resolve('running' as const)])));
          refused = ended.filter((outcome): outcome is PeerCallError => outcome instanceof PeerCallError);
          return refused.length >= SLOTS * 2;
        },
        10_000,
        'the fragments past the slots to be refused',
      );
      assert.equal(refused.length, SLOTS * 2);
      for (const failure of refused) {
        assert.equal(failure.code, grpc.status.RESOURCE_EXHAUSTED, String(failure));
        assert.equal(failure.reason, 'query-slots');
      }
      assert.equal(await metricValue(nodes[2]!, 'trawl_shard_fragments_running'), SLOTS);
      // An HTTP query on the same node finds no slot either.
      const busy = await postJson(`${nodes[2]!.api}/query`, { ...range, q: 'from exp | stats count()' });
      assert.equal(busy.status, 429, JSON.stringify(busy.body));
      // Through another node, the busy node's keys are read by their other owners: the count is whole.
      const through = await postJson(`${nodes[0]!.api}/query`, { ...range, q: 'from exp | stats count()' });
      assert.equal(through.status, 200, JSON.stringify(through.body));
      assert.deepEqual(through.body.data.rows, [[EXPORTED]]);
      assert.equal(through.body.meta.partial, undefined);
    } finally {
      const canceled = Date.now();
      for (const each of calls) each.call.cancel();
      const took = await fragmentsStopped(canceled);
      assert.ok(took <= 1000, `node 3 ran its fragments ${took} ms after they were canceled`);
      await settles(2000);
      client.close();
    }
    // Its slots are free again.
    const count = await postJson(`${nodes[2]!.api}/query`, { ...range, q: 'from exp | stats count()' });
    assert.equal(count.status, 200, JSON.stringify(count.body));
  });

  it('fragments whose connection closes stop within a second', async () => {
    const keys = await heavyKeys();
    const method = SHARD_QUERY.Query;
    // A bare HTTP/2 connection, so that closing it cuts the calls (a gRPC channel's close waits for them).
    const session = http2.connect(`http://${nodes[2]!.grpc}`);
    for (let i = 0; i < SLOTS; i++) {
      const body = method.requestSerialize(fragment({ keys }));
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      body.copy(frame, 5);
      const stream = session.request({ ':method': 'POST', ':path': method.path, 'content-type': 'application/grpc', te: 'trailers' });
      stream.on('error', () => undefined);
      stream.resume();
      stream.end(frame);
    }
    await waitUntil(
      async () => (await metricValue(nodes[2]!, 'trawl_shard_fragments_running')) === SLOTS,
      10_000,
      'node 3 to run the fragments',
    );
    const closed = Date.now();
    session.destroy();
    const took = await fragmentsStopped(closed);
    assert.ok(took <= 1000, `node 3 ran its fragments ${took} ms after their connection closed`);
    await settles(2000);
  });

  it('refuses a bad fragment INVALID_ARGUMENT with a message', async () => {
    const address = nodes[2]!.grpc;
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    const bad: [string, Partial<wire.ShardQueryRequest>][] = [
      ['a key outside index|bucket|partition', { text: 'from exp | stats count()', keys: ['../../etc'] }],
      ['a key with a bad index name', { text: 'from exp | stats count()', keys: ['Bad Name|1|1'] }],
      ['a key with a bucket that is no number', { text: 'from exp | stats count()', keys: ['exp|x|1'] }],
      ['a range that ends before it starts', { text: 'from exp | stats count()', from_micros: 10, to_micros: 5 }],
      ['an over-long query text', { text: `from exp | search "${'x'.repeat(300_000)}"` }],
      ['variables that are not an object', { text: 'from exp | stats count()', variables_json: '[1]' }],
      ['query text that does not parse', { text: 'from exp | stats count(' }],
    ];
    for (const [what, overrides] of bad) {
      const failure = await ask(client, fragment(overrides)).ended;
      assert.equal(failure?.code, grpc.status.INVALID_ARGUMENT, `${what}: ${String(failure)}`);
      assert.equal(failure?.reason, 'invalid-fragment', what);
      assert.ok(!/\n\s+at /.test(failure.details), `${what}: a stack trace in ${failure.details}`);
    }
    client.close();
  });

  /** Checks an export: the whole of it, or rows then one error as the last line; never a crash of node 1. */
  function checkExport(outcome: ExportOutcome, what: string): 'whole' | 'error' {
    assert.equal(outcome.broken, 0, `${what}: a cut line`);
    const { lines } = outcome;
    const last = lines[lines.length - 1];
    const rows = lines.slice(0, -1);
    assert.ok(
      rows.every((line) => line.__error === undefined && line.__meta === undefined),
      `${what}: an error or meta line before the end`,
    );
    const ids = rows.map((row) => row.id as number);
    assert.equal(new Set(ids).size, ids.length, `${what}: an event twice`);
    assert.equal(nodes[0]!.server.process.exitCode, null, `${what}: node 1 exited:\n${nodes[0]!.server.log.slice(-3000)}`);
    // A shard none of whose rows went out is read again on another owner: the export fails only after rows.
    if (last?.__error !== undefined) {
      if (last.__error.code === 'SHARD_FAILED')
        assert.ok(rows.length > 0, `${what}: the export failed before any row went out: ${JSON.stringify(last)}`);
      return 'error';
    }
    assert.ok(last?.__meta !== undefined, `${what}: no final line`);
    assert.equal(ids.length, EXPORTED, `${what}: ${ids.length} events, meta ${JSON.stringify(last.__meta)}`);
    assert.deepEqual(
      [...ids].sort((a, b) => a - b),
      exported.map((_, i) => i),
      `${what}: every event exactly once`,
    );
    return 'whole';
  }

  it('an export through node 1 whose shard stops (SIGSTOP) in the middle ends whole or with one final error line, and node 1 lives', async () => {
    const frozen = nodes[2]!.server.process;
    let thawed: NodeJS.Timeout | null = null;
    try {
      const outcome = await exportStream(nodes[0]!, { ...range, q: SLOW_EXPORT }, async () => {
        frozen.kill('SIGSTOP');
        thawed = setTimeout(() => frozen.kill('SIGCONT'), 8000);
        // A client that reads slowly for a while: the other shards' rows wait in node 1 meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 1500));
      });
      checkExport(outcome, 'SIGSTOP');
    } finally {
      if (thawed !== null) clearTimeout(thawed);
      frozen.kill('SIGCONT');
    }
    await waitForUp(nodes, ['node1', 'node2', 'node3']);
    // And node 1 still answers whole.
    const count = await postJson(`${nodes[0]!.api}/query`, { ...range, q: 'from exp | stats count()' });
    assert.deepEqual(count.body.data.rows, [[EXPORTED]]);
  });

  it('an export through node 1 canceled while its client reads slowly ends with one final error line, and node 1 lives', async () => {
    // The client stops reading at the first rows; the shards' rows wait in node 1 when the job is canceled.
    const outcome = await exportStream(nodes[0]!, { ...range, q: SLOW_EXPORT }, async () => {
      const running = (await request(`${nodes[0]!.api}/query/jobs?status=running`)).body.data.jobs as { job_id: string }[];
      assert.equal(running.length, 1);
      assert.equal((await request(`${nodes[0]!.api}/query/jobs/${running[0]!.job_id}`, { method: 'DELETE' })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    });
    assert.equal(checkExport(outcome, 'cancel'), 'error');
    assert.equal(outcome.lines.at(-1).__error.code, 'QUERY_CANCELED');
  });

  it('an export through node 1 whose shard dies (SIGKILL) in the middle ends whole or with one final error line, and node 1 lives', async () => {
    const outcome = await exportStream(nodes[0]!, { ...range, q: SLOW_EXPORT }, () => nodes[1]!.server.kill());
    checkExport(outcome, 'SIGKILL');
    const count = await postJson(`${nodes[0]!.api}/query`, { ...range, q: 'from exp | stats count()' });
    assert.deepEqual(count.body.data.rows, [[EXPORTED]]);
    await nodes[1]!.restart();
    await waitForUp(nodes, ['node1', 'node2', 'node3']);
  });
});
