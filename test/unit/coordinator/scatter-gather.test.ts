/**
 * Scatter-gather over nodes in this process: each node a real storage engine answering fragments
 * for the keys it was given (LocalShardTarget). With replication every key is asked of one owner
 * only; a node whose storage fails mid-query has its keys asked of the other owners; a key with
 * no owner left is counted missing. Answers are compared with one engine holding every event.
 */
import { strict as assert } from 'assert';
import { LocalShardTarget, planOf } from '../../../coordinator/local-target';
import {
  BUSY_WAITS_MS,
  scatterGather,
  ShardBusyError,
  ShardLostError,
  type ClusterView,
  type ShardTarget,
} from '../../../coordinator/scatter-gather';
import { localScanSource } from '../../../node/core/local-scan-source';
import { executePlan } from '../../../query/exec/execute';
import type { TimedRow } from '../../../query/exec/rows';
import { QueryWorkerPool } from '../../../query/exec/session-pool';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { decodeChunkRecord, encodeChunkRecord } from '../../../storage/buffer/chunk-record';
import { chunkEvents, type EventChunk } from '../../../storage/buffer/event-chunk';
import { fnv1a32, keyString } from '../../../storage/core/partition';
import { prng } from '../../../scripts/bench/generate';
import { openTestEngine } from '../../helpers/engine';
import { executeOptions, mergedAnswer, sessionSpec } from '../../helpers/query-run';
import { waitUntil } from '../../helpers/api';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const PLACEMENT = { bucketSpanMicros: HOUR, partitions: 4 };
const NODES = ['a', 'b', 'c'];

function events(count: number): LogEvent[] {
  const next = prng(11);
  return Array.from({ length: count }, (_, i) => ({
    time: BASE + i * 3_000_000 + Math.floor(next() * 1000),
    raw: `line ${i} ${next() < 0.2 ? 'error' : 'fine'}`,
    index: 'main',
    fields: { host: `h${Math.floor(next() * 7)}`, source: 'gen', n: i },
  }));
}

/** Owners of a key: `rf` nodes from a hash of it (a stand-in ring, fixed for the test). */
function ownersOf(key: string, rf: number): string[] {
  const first = fnv1a32(key) % NODES.length;
  return Array.from({ length: rf }, (_, i) => NODES[(first + i) % NODES.length]!);
}

/** Stores chunks as a shard write does: their record, keyed as the taking node keyed it. */
async function store(engine: StorageEngine, chunks: EventChunk[]): Promise<void> {
  const record = encodeChunkRecord(chunks, PLACEMENT);
  await engine.appendRecord(decodeChunkRecord(record).chunks, record);
}

function open(): Promise<StorageEngine> {
  return openTestEngine({ placement: PLACEMENT });
}

const SPEC = (text: string) => sessionSpec(text, { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR });

const QUERIES = [
  'from main | stats count(), sum(n), dc(host) by host',
  'from main | search error | head 7',
  'from main | sort n desc | head 12',
  'from main | where n % 3 = 0',
];

describe('scatter-gather over nodes, each answering for the keys it was given', function () {
  this.timeout(60_000);
  const all = events(3000);
  // Grouped as the node that takes a request groups it (hot pairs spill over partitions); each
  // owner then stores the chunks of its keys as they are, as a shard write does.
  const chunks = chunkEvents(all, PLACEMENT);
  const keys = [...new Set(chunks.map((chunk) => keyString(chunk.key)))];
  let whole: StorageEngine;
  let pool: QueryWorkerPool;
  const engines = new Map<string, StorageEngine>();

  before(async () => {
    pool = new QueryWorkerPool(2);
    whole = await open();
    await store(whole, chunks);
    // Replication 2: each node holds the chunks of the keys it owns.
    for (const node of NODES) {
      const engine = await open();
      await store(
        engine,
        chunks.filter((chunk) => ownersOf(keyString(chunk.key), 2).includes(node)),
      );
      await engine.flush();
      engines.set(node, engine);
    }
  });

  after(async () => {
    await pool.close();
    for (const engine of [whole, ...engines.values()]) await engine.close().catch(() => undefined);
  });

  function target(node: string): ShardTarget {
    return new LocalShardTarget(node, localScanSource(engines.get(node)!), pool, {
      maxQueryMemoryBytes: () => 1e9,
      pool: null,
      heldIndexes: () => engines.get(node)!.heldIndexNames(),
    });
  }

  async function expected(text: string) {
    const plan = planOf(SPEC(text));
    return (await executePlan(localScanSource(whole), plan, executeOptions(pool, SPEC(text)))).data;
  }

  async function gathered(view: ClusterView, text: string) {
    const spec = SPEC(text);
    const { answers, missing } = await scatterGather(view, spec, keys, new AbortController().signal, null);
    return { data: mergedAnswer(answers, spec), missing };
  }

  it('asks each key of one owner: the same answers as one node with every event', async () => {
    let asked = 0;
    const view: ClusterView = {
      owners: (key) => ownersOf(key, 2),
      usable: () => true,
      target: (node) => {
        const inner = target(node);
        return { node, run: (fragment, call) => ((asked += fragment.keys.length), inner.run(fragment, call)) };
      },
    };
    for (const text of QUERIES) {
      asked = 0;
      const { data, missing } = await gathered(view, text);
      assert.deepEqual(data, await expected(text), text);
      assert.equal(missing, 0);
      assert.equal(asked, keys.length, `${text}: every key asked once`);
    }
  });

  it("asks a failed node's keys of the other owners; with no owner left a key is missing", async () => {
    // b's events in segments, then its storage closed under it: every fragment it runs fails reading.
    const broken = await open();
    await store(
      broken,
      chunks.filter((chunk) => ownersOf(keyString(chunk.key), 2).includes('b')),
    );
    await broken.flush();
    await broken.close();
    const failing: ShardTarget = new LocalShardTarget('b', localScanSource(broken), pool, {
      maxQueryMemoryBytes: () => 1e9,
      pool: null,
      heldIndexes: () => broken.heldIndexNames(),
    });
    const view = (rf: number): ClusterView => ({
      owners: (key) => ownersOf(key, rf),
      usable: () => true,
      target: (node) => (node === 'b' ? failing : target(node)),
    });
    for (const text of QUERIES) {
      const { data, missing } = await gathered(view(2), text);
      assert.deepEqual(data, await expected(text), `${text} with b failing`);
      assert.equal(missing, 0);
    }
    // A query that reads a column (a count alone is answered from the segment headers in memory).
    const { missing } = await gathered(view(1), 'from main | stats sum(n)');
    assert.equal(missing, keys.filter((key) => ownersOf(key, 1)[0] === 'b').length);
    assert.ok(missing > 0);
  });

  it("asks a busy node's keys of another owner, waits for a node that alone owns them, and fails TOO_MANY_REQUESTS when it stays busy", async () => {
    /** b refuses its first `refusals` fragments as a node with no free query slot does. */
    const busyFor = (refusals: number) => {
      let refused = 0;
      const asked: string[] = [];
      const view = (rf: number): ClusterView => ({
        owners: (key) => ownersOf(key, rf),
        usable: () => true,
        target: (node) => ({
          node,
          run: (fragment, call) => {
            asked.push(node);
            if (node === 'b' && refused < refusals) {
              refused++;
              return Promise.reject(new ShardBusyError('node b is busy'));
            }
            return target(node).run(fragment, call);
          },
        }),
      });
      return { view, asked };
    };
    const text = 'from main | stats count(), sum(n) by host';
    // With another owner: b's keys go there at once, and the answer is whole.
    const elsewhere = busyFor(1);
    const other = await gathered(elsewhere.view(2), text);
    assert.deepEqual(other.data, await expected(text));
    assert.equal(other.missing, 0);
    assert.equal(elsewhere.asked.filter((node) => node === 'b').length, 1, 'b asked once');
    // b alone owns its keys: they wait for it, and the answer is whole once it has a slot.
    const waited = busyFor(3);
    const started = performance.now();
    const alone = await gathered(waited.view(1), text);
    assert.deepEqual(alone.data, await expected(text));
    assert.equal(alone.missing, 0);
    assert.equal(waited.asked.filter((node) => node === 'b').length, 4);
    assert.ok(performance.now() - started >= BUSY_WAITS_MS[0]! + BUSY_WAITS_MS[1]! + BUSY_WAITS_MS[2]!, 'it waited between the asks');
    // Busy past every wait: the query fails as too many queries, not as a smaller answer.
    await assert.rejects(
      gathered(busyFor(Infinity).view(1), text),
      (error: Error) => error instanceof ShardBusyError && (error as ShardBusyError).code === 'TOO_MANY_REQUESTS',
    );
  });

  it("merges the nodes' exports newest first, and ends an export that lost a node after its rows", async () => {
    const view: ClusterView = { owners: (key) => ownersOf(key, 2), usable: () => true, target };
    const spec = { ...SPEC('from main | where n % 5 = 0'), stream: true, limit: Number.MAX_SAFE_INTEGER };
    const streamed: TimedRow[] = [];
    await scatterGather(view, spec, keys, new AbortController().signal, async (rows) => void streamed.push(...rows));
    const want = all
      .filter((event) => (event.fields.n as number) % 5 === 0)
      .map((event) => event.time)
      .sort((x, y) => y - x);
    assert.deepEqual(
      streamed.map((row) => row.time),
      want,
    );

    // Node a fails once some of its rows went out: after every other node ended, which releases
    // what a sent (on a loaded machine a could otherwise fail before the merge let any row out).
    const others: Promise<unknown>[] = [];
    const dying: ShardTarget = {
      node: 'a',
      run: async (fragment, call) => {
        await target('a').run(fragment, call);
        await Promise.allSettled(others);
        // The merge closes an ended node's stream in the turn after its run resolves.
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('connection reset');
      },
    };
    const tracked = (node: string): ShardTarget => ({
      node,
      run: (fragment, call) => {
        const run = target(node).run(fragment, call);
        others.push(run);
        return run;
      },
    });
    const losing: ClusterView = {
      owners: (key) => ownersOf(key, 2),
      usable: () => true,
      target: (node) => (node === 'a' ? dying : tracked(node)),
    };
    await assert.rejects(
      scatterGather(losing, spec, keys, new AbortController().signal, async () => undefined),
      ShardLostError,
    );
  });

  it('holds nodes that are ahead of the slowest one in an export, instead of piling their rows up', async () => {
    // Enough rows that each node sends many batches; all within the query's day.
    const many = events(20_000);
    const manyChunks = chunkEvents(many, PLACEMENT);
    const manyKeys = [...new Set(manyChunks.map((chunk) => keyString(chunk.key)))];
    const own = new Map<string, StorageEngine>();
    for (const node of NODES) {
      const engine = await open();
      await store(
        engine,
        manyChunks.filter((chunk) => ownersOf(keyString(chunk.key), 1)[0] === node),
      );
      await engine.flush();
      own.set(node, engine);
    }
    try {
      const spec = { ...SPEC('from main'), stream: true, limit: Number.MAX_SAFE_INTEGER };
      let openGate: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (openGate = resolve));
      let blocked = 0;
      const view: ClusterView = {
        owners: (key) => ownersOf(key, 1),
        usable: () => true,
        target: (node) => {
          const inner = new LocalShardTarget(node, localScanSource(own.get(node)!), pool, {
            maxQueryMemoryBytes: () => 1e9,
            pool: null,
            heldIndexes: () => own.get(node)!.heldIndexNames(),
          });
          // c starts late: until then every other node is ahead of it.
          if (node === 'c') return { node, run: async (fragment, call) => (await gate, inner.run(fragment, call)) };
          return {
            node,
            run: (fragment, call) =>
              inner.run(fragment, {
                ...call,
                onRows: async (rows, bound) => {
                  blocked++;
                  try {
                    await call.onRows!(rows, bound);
                  } finally {
                    blocked--;
                  }
                },
              }),
          };
        },
      };
      const streamed: TimedRow[] = [];
      const done = scatterGather(
        view,
        spec,
        manyKeys,
        new AbortController().signal,
        async (rows) => void streamed.push(...rows),
        {},
        { maxWaitingRows: 100 },
      );
      // Without the hold, a and b hand everything over at once and never both wait.
      await waitUntil(() => blocked === 2, 10_000, 'a and b to wait for c');
      assert.equal(streamed.length, 0, 'nothing can go out before c bounds its rows');
      openGate();
      await done;
      const want = many
        .map((event) => event.time)
        .filter((time) => time < SPEC('').toMicros)
        .sort((x, y) => y - x);
      assert.deepEqual(
        streamed.map((row) => row.time),
        want,
        'every row once, newest first',
      );
    } finally {
      for (const engine of own.values()) await engine.close();
    }
  });
});
