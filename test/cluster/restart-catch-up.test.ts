/**
 * A restarted owner answers only what it knows it holds. Three real nodes: an owner is killed with
 * SIGKILL, writes for it pile up as hints on the other two, and it is started again while they
 * replay slowly (TRAWL_TEST_HINT_REPLAY_BYTES_PER_SECOND). From the moment it listens until the
 * replay ended, every answer through it and through another node is exact or says meta.partial,
 * never short without it, and the owner refuses the fragments of a coordinator that has not heard
 * yet; /health and /cluster/status say it is catching up. Once the replay ended, every answer is
 * exact and whole.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { postJson, request } from '../helpers/server';
import { PeerCallError, PeerClients } from '../../node/cluster/grpc/peers';
import { TEST_REPLAY_RATE_VARIABLE } from '../../node/cluster/hint-replay';
import { RemoteShardTarget } from '../../node/cluster/remote-shard-target';
import { CATCHING_UP_REFUSAL } from '../../node/cluster/fragment-serving';
import { startClusteredServers, stopClusteredServers, storedEvents, waitForUp, type ClusteredServer } from './helpers/clustered-servers';
import { metricValue } from './helpers/metrics';
import { placeRequest, type RingLayout } from './helpers/placement';
import { taggedEvents } from './helpers/test-events';

const IDS = ['node1', 'node2', 'node3'];
/** Requests ingested while the owner is down: each leaves one hint for it on the node that took it. */
const REQUESTS = 24;
const EVENTS_PER_REQUEST = 150;
/** Slow enough that the hints take seconds to replay: the window the queries look into. */
const REPLAY_BYTES_PER_SECOND = 16 * 1024;
const HOUR_MS = 3_600_000;
/** A query naming its index (keys from placement) and one by a glob (keys from the nodes' Keys). */
const QUERIES = ['from main | stats count() as n', 'from * | stats count() as n'];

interface Answer {
  via: string;
  q: string;
  count: number;
  partial: boolean;
  missingKeys: number;
  /** Whether the owner still lacked part of its share when the query was sent. */
  duringReplay: boolean;
}

/** The refusal `node` answers a query fragment from this process (no member) with; null when it answers. */
async function fragmentRefusal(node: ClusteredServer): Promise<string | null> {
  const peers = new PeerClients();
  const nowMicros = Date.now() * 1000;
  const spec = {
    text: 'from main | stats count()',
    variables: {},
    fromMicros: nowMicros - HOUR_MS * 1000,
    toMicros: nowMicros + 24 * HOUR_MS * 1000,
    nowMicros,
    limit: 100,
    offset: 0,
    profile: false,
    trace: false,
    stream: false,
  };
  try {
    await new RemoteShardTarget(node.id, node.grpc, peers, Date.now() + 10_000, 10_000).run(
      { spec, keys: [] },
      { signal: new AbortController().signal, onRows: null },
    );
    return null;
  } catch (error) {
    if (error instanceof PeerCallError) return error.reason;
    throw error;
  } finally {
    peers.close();
  }
}

function scenario(replicationFactor: number, restarted: string): void {
  describe(`cluster: a restarted owner at replication ${replicationFactor} (${restarted})`, function () {
    this.timeout(180_000);
    const ring: RingLayout = { members: IDS, replicationFactor };
    let nodes: ClusteredServer[] = [];

    before(async () => {
      nodes = await startClusteredServers(3, {
        set: { 'cluster.replication_factor': replicationFactor },
        env: { [TEST_REPLAY_RATE_VARIABLE]: String(REPLAY_BYTES_PER_SECOND) },
      });
    });

    after(async () => {
      await stopClusteredServers(nodes, true);
    });

    const count = async (via: ClusteredServer, q = QUERIES[0]!): Promise<{ count: number; partial: boolean; missingKeys: number }> => {
      const now = Date.now();
      const body = { q, from: new Date(now - HOUR_MS).toISOString(), to: new Date(now + 24 * HOUR_MS).toISOString() };
      const answer = await postJson(`${via.api}/query`, body);
      assert.equal(answer.status, 200, `${via.id}: ${answer.text}`);
      return {
        count: answer.body.data.rows[0]?.[0] ?? 0,
        partial: answer.body.meta?.partial === true,
        missingKeys: answer.body.meta?.missing_keys ?? 0,
      };
    };

    /** Whether the owner's /health says degraded, and whether `observer` sees it catching up (/cluster/status). */
    const catchingUp = async (owner: ClusteredServer, observer: ClusteredServer): Promise<{ degraded: boolean; catchingUp: boolean }> => {
      const health = (await request(`${owner.server.url}/health`)).body.data;
      const status = (await request(`${observer.api}/cluster/status`)).body.data;
      const seen = status.nodes.find((node: { id: string }) => node.id === owner.id);
      assert.equal(status.status === 'degraded', seen.catching_up || seen.state === 'down', JSON.stringify(status));
      return { degraded: health.degraded, catchingUp: seen.catching_up };
    };

    it('answers exactly or says partial while its hints replay, and exactly once they did', async () => {
      const owner = nodes.find((node) => node.id === restarted)!;
      const others = nodes.filter((node) => node !== owner);
      await owner.server.kill();
      await waitForUp(
        others,
        others.map((node) => node.id),
      );

      let total = 0;
      let ownerShare = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const events = taggedEvents(`restart-${replicationFactor}-${i}`, EVENTS_PER_REQUEST, 10);
        const answer = await postJson(`${others[i % 2]!.api}/ingest`, events);
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.data.accepted, events.length);
        total += events.length;
        for (const { owners } of placeRequest(events, ring)) {
          if (owners.includes(restarted)) ownerShare++;
        }
      }
      assert.ok(ownerShare > 0, `${restarted} owns some of the events`);
      for (const holder of others)
        assert.ok(
          (await metricValue(holder, 'trawl_hints_pending', `target="${restarted}"`)) > 0,
          `${holder.id} holds hints for ${restarted}`,
        );

      await owner.restart();
      const answers: Answer[] = [];
      const caughtUpSeen: { degraded: boolean; catchingUp: boolean }[] = [];
      const refusals: (string | null)[] = [];
      for (;;) {
        const duringReplay = (await storedEvents(owner)) < ownerShare;
        if (duringReplay) caughtUpSeen.push(await catchingUp(owner, others[0]!));
        if (duringReplay && refusals.length === 0) refusals.push(await fragmentRefusal(owner));
        const asked = [owner, others[0]!].flatMap((via) => QUERIES.map((q) => ({ via, q })));
        const round = await Promise.all(asked.map(async ({ via, q }) => ({ via: via.id, q, duringReplay, ...(await count(via, q)) })));
        answers.push(...round);
        if (!duringReplay) break;
      }
      assert.ok(answers[0]!.duringReplay, 'the first queries came while the hints were still replaying');
      assert.deepEqual(
        refusals,
        [CATCHING_UP_REFUSAL],
        'a fragment sent to it while it caught up is refused: the coordinator asks the other owners',
      );
      assert.ok(
        caughtUpSeen.some((seen) => seen.degraded && seen.catchingUp),
        `/health and /cluster/status said it was catching up: ${JSON.stringify(caughtUpSeen)}`,
      );
      for (const answer of answers) {
        const what = JSON.stringify(answer);
        if (!answer.partial) assert.equal(answer.count, total, `an answer that is not partial is exact: ${what}`);
        else assert.ok(answer.count <= total && answer.missingKeys > 0, `a partial answer names its missing keys: ${what}`);
      }

      assert.equal(await storedEvents(owner), ownerShare, `${restarted} holds its share once`);
      for (const node of nodes) {
        await waitUntil(
          async () => (await metricValue(node, 'trawl_hints_pending_holders', `target="${restarted}"`)) === 0,
          10_000,
          `${node.id} to hear the hints for ${restarted} are replayed`,
        );
      }
      await waitForUp(nodes, IDS);
      assert.equal(await fragmentRefusal(owner), null, 'caught up, it answers fragments');
      for (const via of nodes)
        assert.deepEqual(await catchingUp(owner, via), { degraded: false, catchingUp: false }, `${via.id} sees ${restarted} caught up`);
      for (const via of nodes) {
        // The last report may still be on its way to the node asked: it says partial until then.
        await waitUntil(async () => !(await count(via)).partial, 10_000, `${via.id} to answer whole`);
        for (const q of QUERIES) assert.deepEqual(await count(via, q), { count: total, partial: false, missingKeys: 0 }, `${via.id}: ${q}`);
      }
    });
  });
}

scenario(1, 'node3');
scenario(2, 'node1');
