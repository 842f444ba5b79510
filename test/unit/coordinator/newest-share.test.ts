/**
 * A `head N` over several nodes asks each for its newest share first, and asks the whole head
 * again only of a node whose share may have cut the answer short. Two real engines, one of them
 * served over gRPC so the share crosses the wire; the answers come from the test's own events.
 */
import { strict as assert } from 'assert';
import client from 'prom-client';
import { LocalShardTarget, planOf } from '../../../coordinator/local-target';
import { cutShort, gatherNewest, newestShare, NewestShares, nthNewestTime } from '../../../coordinator/newest-share';
import { QuerySlots } from '../../../coordinator/query-slots';
import type { Answer, ClusterView, ShardFragment, ShardTarget } from '../../../coordinator/scatter-gather';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { GrpcServer } from '../../../node/cluster/grpc/server';
import { RemoteShardTarget } from '../../../node/cluster/remote-shard-target';
import { ShardQueryMetrics } from '../../../node/cluster/shard-query-metrics';
import { addShardQueryService } from '../../../node/cluster/shard-query-service';
import { localScanSource } from '../../../node/core/local-scan-source';
import type { ShardResult } from '../../../query/exec/shard-session';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import { chunkEvents } from '../../../storage/buffer/event-chunk';
import type { LogEvent } from '../../../storage/core/event';
import { keyString } from '../../../storage/core/partition';
import type { StorageEngine } from '../../../storage/engine';
import { engineHolding } from '../../helpers/engine';
import { mergedAnswer, sessionSpec } from '../../helpers/query-run';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 8 };
const COUNT = 40;
const RANGE = { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR };

/** 4,000 events, one a second from BASE, over 16 hosts: a little over an hour. */
const EVENTS: LogEvent[] = Array.from({ length: 4000 }, (_, i) => ({
  time: BASE + i * 1_000_000,
  raw: `line ${i}`,
  index: 'main',
  fields: { host: `h${i % 16}`, source: 'gen', n: i },
}));
const chunks = chunkEvents(EVENTS, PLACEMENT);
const keys = [...new Set(chunks.map((chunk) => keyString(chunk.key)))];

/** The newest `count` n values of the events that pass `keep`, from the test's own data. */
function newestNs(keep: (n: number) => boolean, count: number): number[] {
  return EVENTS.map((event) => event.fields.n as number)
    .filter(keep)
    .sort((a, b) => b - a)
    .slice(0, count);
}

interface Asked {
  node: string;
  share: number | undefined;
  toMicros: number;
  rows: number;
  oldest: number;
}

/** Engines holding `chunks` split by `ownerOf`, one per owner. */
async function enginesFor(
  chunkList: ReturnType<typeof chunkEvents>,
  ownerOf: (key: string) => string,
  owners: readonly string[],
): Promise<Map<string, StorageEngine>> {
  const out = new Map<string, StorageEngine>();
  for (const node of owners) {
    out.set(
      node,
      await engineHolding(
        chunkList.filter((chunk) => ownerOf(keyString(chunk.key)) === node),
        { placement: PLACEMENT },
      ),
    );
  }
  return out;
}

/** An answer of `node` asked for `share` rows, holding rows at `time`. */
const answer = (time: number[], share = 3, node = 'a'): Answer => ({
  node,
  keys: [],
  spec: { ...sessionSpec('from main | head 4', RANGE), newestShare: share },
  attempt: 0,
  result: { newest: time.map((t) => ({ time: t, row: {} })) } as unknown as ShardResult,
});

describe('a head over several nodes asks each for its newest share', function () {
  this.timeout(60_000);
  let pool: QueryWorkerPool;
  const engines = new Map<string, StorageEngine>();
  const servers: GrpcServer[] = [];
  const peers = new PeerClients(100);

  /** Keys of an even partition on node a, odd on b: both hold some of every minute. */
  const spread = (key: string): string => (Number(key.split('|')[2]) % 2 === 0 ? 'a' : 'b');

  before(async () => {
    pool = new QueryWorkerPool(2);
    for (const [node, engine] of await enginesFor(chunks, spread, ['a', 'b'])) engines.set(node, engine);
    assert.ok(keys.some((key) => spread(key) === 'a') && keys.some((key) => spread(key) === 'b'), 'both nodes hold keys');
  });

  after(async () => {
    for (const server of servers) await server.close(100);
    await pool.close();
    for (const engine of engines.values()) await engine.close().catch(() => undefined);
  });

  const local = (node: string): ShardTarget =>
    new LocalShardTarget(node, localScanSource(engines.get(node)!), pool, {
      maxQueryMemoryBytes: () => 1e9,
      pool: null,
      heldIndexes: () => engines.get(node)!.heldIndexNames(),
    });

  /** Node `node` served over gRPC from this process. */
  async function remote(node: string): Promise<ShardTarget> {
    const server = new GrpcServer();
    addShardQueryService(
      server,
      {
        engine: engines.get(node)!,
        source: localScanSource(engines.get(node)!),
        workers: pool,
        fragment: { maxQueryMemoryBytes: () => 1e9, pool: null, heldIndexes: () => engines.get(node)!.heldIndexNames() },
        slots: new QuerySlots(() => 10),
        maxQueryRuntimeMs: () => 30_000,
        metrics: new ShardQueryMetrics(new client.Registry()),
      },
      (error) => assert.fail(error),
    );
    const port = await server.listen('127.0.0.1:0');
    servers.push(server);
    return new RemoteShardTarget(node, `127.0.0.1:${port}`, peers, Date.now() + 30_000, 5_000);
  }

  /** Runs `text` over both nodes with `ownerOf` placing the keys; the answer's n values and each fragment asked. */
  async function headOver(
    text: string,
    ownerOf: (key: string) => string,
    targets: Record<string, ShardTarget>,
    keyList: readonly string[] = keys,
    shares = new NewestShares(),
  ): Promise<{ ns: unknown[]; asked: Asked[] }> {
    const spec = sessionSpec(text, RANGE);
    const plan = planOf(spec);
    assert.equal(plan.boundary.kind, 'head');
    const asked: Asked[] = [];
    const view: ClusterView = {
      owners: (key) => [ownerOf(key)],
      usable: () => true,
      target: (node) => ({
        node,
        run: async (fragment: ShardFragment, call) => {
          const result = await targets[node]!.run(fragment, call);
          const times = (result.newest ?? []).map((row) => row.time);
          asked.push({
            node,
            share: fragment.spec.newestShare,
            toMicros: fragment.spec.toMicros,
            rows: times.length,
            oldest: Math.min(...times),
          });
          return result;
        },
      }),
    };
    const count = plan.boundary.kind === 'head' ? plan.boundary.count : 0;
    const query = { view, spec, keys: keyList, count, signal: new AbortController().signal, observer: {} };
    const { answers, missing } = await gatherNewest(query, { shares, scope: 'main' });
    assert.equal(missing, 0);
    const data = mergedAnswer(answers, spec);
    assert.equal(data.type, 'events');
    return { ns: data.type === 'events' ? data.events.map((event) => event.n) : [], asked };
  }

  it('sizes a share a little above the even one, and none where that is not below N', () => {
    assert.equal(newestShare(100, 1 / 3), 47);
    assert.equal(newestShare(1000, 1 / 3), 372);
    assert.equal(newestShare(100, 0.48), 64, 'a node that held 48% of the newest rows');
    assert.equal(newestShare(100, 1), null);
    assert.equal(newestShare(5, 1 / 3), null);
    assert.equal(newestShare(10, 1 / 2), null);
  });

  it('asks again exactly where a share may lack rows newer than the N-th newest', () => {
    // Two shares of 3: the N-th (4th) newest of all is 7, from the second answer.
    const first = answer([10, 9, 8]);
    const second = answer([7, 6, 5]);
    assert.equal(nthNewestTime([first, second], 4), 7);
    assert.equal(cutShort(first, 7), true, 'a full share whose oldest is newer than the floor');
    assert.equal(cutShort(second, 7), false, 'its oldest row is at the floor: nothing newer is left out');
    assert.equal(cutShort(answer([10, 9]), 7), false, 'fewer rows than the share: the node has no more');
    const whole = { ...first, spec: sessionSpec('from main | head 4', RANGE) };
    assert.equal(cutShort(whole, 7), false, 'a node asked for the whole head');
    assert.equal(nthNewestTime([answer([3]), answer([2])], 4), -Infinity, 'fewer rows than N: no floor');
  });

  it("learns each node's part of the newest rows, halfway at each answer", () => {
    const shares = new NewestShares();
    assert.equal(shares.fraction('main', 'a', 4), 1 / 4, 'an even part until a head was answered');
    // Of the 4 newest (10, 9, 8, 7), a held 3 and b 1; c, asked too, held none.
    shares.learn('main', [answer([10, 9, 8], 3, 'a'), answer([7, 6], 3, 'b')], 4, ['a', 'b', 'c']);
    assert.equal(shares.fraction('main', 'a', 3), (1 / 3 + 3 / 4) / 2);
    assert.equal(shares.fraction('main', 'b', 3), (1 / 3 + 1 / 4) / 2);
    assert.equal(shares.fraction('main', 'c', 3), 1 / 3 / 2);
    assert.equal(shares.fraction('web', 'a', 3), 1 / 3, 'another scope learnt nothing');
  });

  it('rows spread over both nodes: one round of shares, the answer of one engine holding every event', async () => {
    const text = `from main | where n % 3 = 0 | head ${COUNT}`;
    const share = newestShare(COUNT, 1 / 2)!;
    const { ns, asked } = await headOver(text, spread, { a: local('a'), b: await remote('b') });
    assert.deepEqual(
      ns,
      newestNs((n) => n % 3 === 0, COUNT),
    );
    assert.deepEqual(asked.map((each) => each.share).sort(), [share, share], 'each node was asked once, for its share');
    for (const each of asked) assert.ok(each.rows <= share, `node ${each.node} sent ${each.rows} rows, at most its share ${share}`);
  });

  it('one node holds every newest row: its share falls short, and it alone is asked for the rows the head lacks', async () => {
    // The newest bucket (the last 400 events) on one node, the hour before it on the other.
    const newestBucket = Math.max(...keys.map((key) => Number(key.split('|')[1])));
    const owner = (key: string): string => (Number(key.split('|')[1]) === newestBucket ? 'fresh' : 'old');
    for (const [node, engine] of await enginesFor(chunks, owner, ['fresh', 'old'])) engines.set(node, engine);
    const text = `from main | head ${COUNT}`;
    const share = newestShare(COUNT, 1 / 2)!;
    const shares = new NewestShares();
    const targets = { fresh: await remote('fresh'), old: local('old') };
    const { ns, asked } = await headOver(text, owner, targets, keys, shares);
    assert.deepEqual(
      ns,
      newestNs(() => true, COUNT),
    );
    assert.deepEqual(
      asked.map((each) => `${each.node}:${each.share ?? 'all'}`).sort(),
      [`fresh:${COUNT - (share - 1)}`, `fresh:${share}`, `old:${share}`],
      'the fresh node was asked its share, then what the head lacks; the old node its share only',
    );
    const first = asked.find((each) => each.node === 'fresh' && each.share !== undefined)!;
    assert.equal(first.rows, share, 'the remote node kept to its share');
    const again = asked.find((each) => each.node === 'fresh' && each.share !== share)!;
    assert.equal(again.toMicros, first.oldest + 1, 'asked again only up to its oldest row sent');
    assert.equal(again.share, COUNT - (share - 1), 'asked for the rows the head lacks: all but the 30 newer than its oldest');
    assert.equal(again.rows, COUNT - (share - 1));

    // The fresh node held the whole answer: the next head asks it for more than half at once.
    const next = await headOver(text, owner, targets, keys, shares);
    assert.deepEqual(next.ns, ns);
    assert.deepEqual(
      next.asked.map((each) => `${each.node}:${each.share ?? 'all'}`).sort(),
      ['fresh:all', `old:${newestShare(COUNT, 1 / 4)}`],
      'one round: the whole head of the fresh node (3/4 of 40 and its margin is not below 40), a quarter share of the old one',
    );
  });

  it('rows tied at the oldest time of a share: the answer holds every one of them, none twice', async () => {
    // Four events a second: the share of 31 ends inside a second whose rows it did not all send.
    const tied: LogEvent[] = Array.from({ length: 400 }, (_, i) => ({
      time: BASE + 5 * HOUR + Math.floor(i / 4) * 1_000_000,
      raw: `tied ${i}`,
      index: 'main',
      fields: { host: `h${i % 16}`, source: 'gen', n: 10_000 + i },
    }));
    const tiedChunks = chunkEvents(tied, PLACEMENT);
    const tiedKeys = [...new Set(tiedChunks.map((chunk) => keyString(chunk.key)))];
    for (const [node, engine] of await enginesFor(tiedChunks, () => 'tied', ['tied'])) engines.set(node, engine);
    for (const [node, engine] of await enginesFor(chunks, () => 'older', ['older'])) engines.set(node, engine);
    const owner = (key: string): string => (tiedKeys.includes(key) ? 'tied' : 'older');
    const share = newestShare(COUNT, 1 / 2)!;
    const { ns, asked } = await headOver(`from main | head ${COUNT}`, owner, { tied: await remote('tied'), older: local('older') }, [
      ...keys,
      ...tiedKeys,
    ]);
    // The newest ten seconds are 40 rows: the answer as a set, since rows tied in time come in any order.
    assert.deepEqual(
      [...(ns as number[])].sort((a, b) => a - b),
      tied.slice(-COUNT).map((event) => event.fields.n),
    );
    assert.ok(share % 4 !== 0, 'the share ends inside a second');
    assert.ok(asked.filter((each) => each.node === 'tied').length === 2, 'the node holding the newest rows was asked again');
  });
});
