/**
 * How a `head N` hands blocks to its session. It stops as soon as it holds its rows, so blocks
 * wholly older than what it has read wait until the floor says whether they are needed; but the
 * newest blocks of several partitions lie side by side in time, and the first of them cannot make
 * the others unnecessary, so they travel in one message rather than one round trip each. The
 * messages are counted on real sessions; the answers come from the test's own events.
 */
import { strict as assert } from 'assert';
import { QueryWorkerPool, type SessionHandle } from '../../../query/exec/session-pool';
import { ShardSession } from '../../../query/exec/shard-session';
import type { QueryPlan } from '../../../query/plan/plan';
import type { SessionSpec } from '../../../query/exec/worker-protocol';
import type { StorageEngine } from '../../../storage/engine';
import type { LogEvent } from '../../../storage/core/event';
import { homePartition } from '../../../storage/core/partition';
import { openTestEngine } from '../../helpers/engine';
import { answerOf } from '../../helpers/query-run';

const HOUR = 3_600_000_000;
const BASE = Date.UTC(2026, 0, 5) * 1000;
const RANGE = { fromMicros: 0, toMicros: BASE + 24 * HOUR, nowMicros: BASE + 24 * HOUR };
const PARTITIONS = 4;
const PER_PARTITION = 300;

/** A host for each partition: the first `h<n>` whose (host, no source) pair hashes there. */
function hostsByPartition(): string[] {
  const hosts: string[] = [];
  for (let n = 0; hosts.filter(Boolean).length < PARTITIONS; n++) {
    const partition = homePartition(`h${n}\u0000`, PARTITIONS);
    hosts[partition] ??= `h${n}`;
  }
  return hosts;
}

/** PER_PARTITION events of every partition in hour `hour`, their times interleaved across partitions. */
function hourOfEvents(hour: number, hosts: readonly string[]): LogEvent[] {
  const events: LogEvent[] = [];
  for (let i = 0; i < PER_PARTITION * hosts.length; i++) {
    const host = hosts[i % hosts.length]!;
    events.push({ time: BASE + hour * HOUR + i * 1_000_000, raw: `event ${hour}/${i}`, index: 'main', fields: { host, i } });
  }
  return events;
}

/** A pool whose sessions count the block messages they are sent and the blocks in each. */
class CountingPool extends QueryWorkerPool {
  readonly messages: number[] = [];

  override open(plan: QueryPlan, spec: SessionSpec, limit = Infinity): SessionHandle[] {
    return super.open(plan, spec, limit).map((handle) => {
      const blocks = handle.blocks.bind(handle);
      handle.blocks = (inputs, decision) => {
        this.messages.push(inputs.length);
        return blocks(inputs, decision);
      };
      return handle;
    });
  }
}

describe('the messages of a head', function () {
  this.timeout(60_000);
  const hosts = hostsByPartition();
  const older = hourOfEvents(0, hosts);
  const newer = hourOfEvents(1, hosts);
  let engine: StorageEngine;
  let pool: CountingPool;

  before(async () => {
    engine = await openTestEngine({ placement: { bucketSpanMicros: HOUR, partitions: PARTITIONS }, segmentMaxEvents: 10_000 });
    // One flush an hour: each partition holds one segment (one block) of each hour.
    await engine.appendEvents(older);
    await engine.flush();
    await engine.appendEvents(newer);
    await engine.flush();
    pool = new CountingPool(1);
  });

  after(async () => {
    await pool.close();
    await engine.close();
  });

  async function head(count: number): Promise<{ times: number[]; messages: number[] }> {
    pool.messages.length = 0;
    const data = await answerOf(engine, pool, `from main | head ${count}`, RANGE, { limit: 10_000, offset: 0 });
    assert.equal(data.type, 'events');
    const events = data.type === 'events' ? data.events : [];
    return { times: events.map((event) => Date.parse(event._time as string) * 1000), messages: [...pool.messages] };
  }

  const newest = (count: number): number[] =>
    [...older, ...newer]
      .map((event) => event.time)
      .sort((a, b) => b - a)
      .slice(0, count);

  it('sends the newest block of every partition in one message, and no older block', async () => {
    const { times, messages } = await head(10);
    assert.deepEqual(times, newest(10));
    assert.deepEqual(messages, [PARTITIONS]);
  });

  it('decodes the late columns of only the newest N rows of the whole message', async () => {
    // An in-process session (no workers), whose late decoding is counted where the block reader hands it over.
    const local = new CountingPool(0);
    const takeLate = ShardSession.prototype.takeLate;
    let decoded = 0;
    ShardSession.prototype.takeLate = function (batch, candidates, prefilter, decodeLate) {
      return takeLate.call(this, batch, candidates, prefilter, (sel, n) => {
        decoded += n;
        return decodeLate(sel, n);
      });
    };
    try {
      const data = await answerOf(engine, local, 'from main | head 10', RANGE, { limit: 10_000, offset: 0 });
      const events = data.type === 'events' ? data.events : [];
      assert.deepEqual(
        events.map((event) => Date.parse(event._time as string) * 1000),
        newest(10),
      );
      assert.deepEqual(
        events.map((event) => event._raw),
        newer
          .slice(-10)
          .map((event) => event.raw)
          .reverse(),
      );
      assert.deepEqual(local.messages, [PARTITIONS]);
      // Each block alone would decode its own newest rows: 10, then those newer than the floor so far.
      assert.equal(decoded, 10);
    } finally {
      ShardSession.prototype.takeLate = takeLate;
      await local.close();
    }
  });

  it('reads the older hour only once the newer cannot fill the head, in a message of its own', async () => {
    const count = newer.length + 50;
    const { times, messages } = await head(count);
    assert.deepEqual(times, newest(count));
    assert.deepEqual(messages, [PARTITIONS, PARTITIONS]);
  });
});
