/**
 * A glob query placed from the index names the members' heartbeats carry, over real clustered
 * processes (3 nodes at replication factor 1, heartbeats 2 s apart so a new index stays unheard of
 * for a while). The coordinator asks no node for its keys once the names are heard; a node holding
 * an index it had not heard of yet refuses the list, and the query runs again asking the nodes:
 * every answer stays exact, and the next query lists the name the refusal taught. An export asks
 * the nodes' keys from the start.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { futureHour } from './helpers/test-events';

const HOUR_MS = 3_600_000;

interface IndexedEvent {
  index: string;
  event: string;
  time: number;
  host: string;
  source: string;
}

/** `count` events of `index`, 7 s apart from `fromMs`, naming their index in the text. */
function eventsOf(index: string, count: number, fromMs: number): IndexedEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    index,
    event: `${index} request ${i} took ${(i * 37) % 500} ms`,
    time: (fromMs + i * 7_000) / 1000,
    host: `web-${i % 7}`,
    source: 'access',
  }));
}

describe('cluster: glob queries placed from the index names the nodes reported', function () {
  this.timeout(180_000);
  const start = futureHour();
  const range = { from: new Date(start - HOUR_MS).toISOString(), to: new Date(start + 3 * HOUR_MS).toISOString() };
  const first = eventsOf('app-first', 300, start);
  let nodes: ClusteredServer[];

  before(async () => {
    const set = {
      'cluster.replication_factor': 1,
      'cluster.partitions': 4,
      'cluster.heartbeat_interval': '2s',
      'cluster.failure_timeout': '20s',
    };
    nodes = await startClusteredServers(3, { set });
    const response = await postJson(`${nodes[0]!.api}/ingest`, first);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    // Heartbeats 2 s apart: node 2 counts a node it has not heard catch up yet as unable to answer.
    await waitUntil(
      async () => {
        const answer = await postJson(`${nodes[1]!.api}/query`, { q: 'from app-first | stats count()', ...range });
        return answer.status === 200 && answer.body.meta.partial === undefined && answer.body.data.rows[0][0] === first.length;
      },
      30_000,
      'node 2 to answer whole for a named index',
    );
  });
  after(async () => {
    await stopClusteredServers(nodes ?? []);
  });

  const coordinator = (): ClusteredServer => nodes[1]!;
  const keysCalls = (): Promise<number> =>
    metricValue(coordinator(), 'trawl_grpc_client_calls_total', 'service="ShardQuery",method="Keys",outcome="ok"');
  const unlisted = (): Promise<number> => metricValue(coordinator(), 'trawl_query_indexes_unlisted_total');
  const count = async (q: string): Promise<number> => {
    const answer = await postJson(`${coordinator().api}/query`, { q, ...range });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.meta.partial, undefined, JSON.stringify(answer.body.meta));
    return answer.body.data.rows[0][0] as number;
  };
  const newest = async (q: string): Promise<string[]> => {
    const answer = await postJson(`${coordinator().api}/query`, { q, ...range });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return (answer.body.data.events as { _raw: string }[]).map((event) => event._raw);
  };

  it('asks no node for its keys once every index the glob matches was reported', async () => {
    // Until node 2 heard every holder's heartbeat, a holder refuses and the query asks the nodes.
    await waitUntil(
      async () => {
        const [keys, refusals] = [await keysCalls(), await unlisted()];
        assert.equal(await count('from app-* | stats count()'), first.length);
        return (await keysCalls()) === keys && (await unlisted()) === refusals;
      },
      30_000,
      'a glob query that asks no node for its keys',
    );
    const keys = await keysCalls();
    assert.equal(await count('from * | stats count()'), first.length);
    assert.deepEqual(
      await newest('from app-* | head 3'),
      first
        .slice(-3)
        .reverse()
        .map((event) => event.event),
    );
    assert.equal(await keysCalls(), keys, 'no Keys call for `from *` or a head either');
  });

  it('an export asks the nodes for their keys, as a query it cannot run again must', async () => {
    const keys = await keysCalls();
    const answer = await request(`${coordinator().api}/query/stream`, {
      method: 'POST',
      body: JSON.stringify({ q: 'from app-*', ...range }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 200);
    const lines = answer.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const meta = lines.pop()!;
    assert.equal((meta.__meta as { partial?: boolean }).partial, undefined);
    assert.deepEqual(
      lines.map((line) => line._raw),
      first.map((event) => event.event).reverse(),
      'every event, newest first',
    );
    assert.equal(await keysCalls(), keys + 2, 'one Keys call to each other node');
  });

  it('a node holding an index the coordinator has not heard of refuses the list, and the answer stays exact', async () => {
    const refusalsBefore = await unlisted();
    let total = first.length;
    // A heartbeat may carry a new name before the query comes: each round names a new index, until one was refused.
    for (let round = 0; round < 6 && (await unlisted()) === refusalsBefore; round++) {
      // Newer than every event before, so the head's rows are all of this index.
      const fresh = eventsOf(`app-new-${round}`, 200, start + HOUR_MS + round * 1_500_000);
      const response = await postJson(`${nodes[0]!.api}/ingest`, fresh);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      total += fresh.length;
      const [counted, head] = await Promise.all([count('from app-* | stats count()'), newest('from app-* | head 5')]);
      assert.equal(counted, total, `round ${round}: every event of every index the glob matches`);
      assert.deepEqual(
        head,
        fresh
          .slice(-5)
          .reverse()
          .map((event) => event.event),
        `round ${round}: the newest rows, of the new index`,
      );
    }
    assert.ok((await unlisted()) > refusalsBefore, 'some round was refused and ran again');
    // The refusal named the new index: the next glob query lists it at once, well before the
    // holder's next heartbeat (2 s apart) would have told the coordinator.
    const refusalsAfter = await unlisted();
    assert.equal(await count('from app-* | stats count()'), total);
    assert.equal(await unlisted(), refusalsAfter, 'the query after a refusal lists the name the refusal taught');
  });
});
