/**
 * Alerts in a cluster of three (replication 2): one live node checks each alert, every node shows
 * its status and which node checks it, and when that node is killed another takes the alert over
 * and keeps notifying, no tick twice.
 */
import { strict as assert } from 'assert';
import { waitUntil } from '../helpers/api';
import { startHttpReceiver, waitFor, type HttpReceiver } from '../helpers/receivers';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, waitForUp, type ClusteredServer } from './helpers/clustered-servers';

describe('cluster: alerts', function () {
  this.timeout(180_000);
  let nodes: ClusteredServer[];
  let receiver: HttpReceiver;

  before(async () => {
    receiver = await startHttpReceiver();
    nodes = await startClusteredServers(3, { set: { 'cluster.replication_factor': 2, 'alerts.min_interval': '1s' } });
  });

  after(async () => {
    await stopClusteredServers(nodes ?? []);
    await receiver?.close();
  });

  const hooks = () =>
    receiver.requests.filter((received) => received.path === '/hook').map((received) => JSON.parse(received.body) as { at: string });

  it('is checked by one node, readable on every node, and taken over when that node is killed', async () => {
    const alert = {
      name: 'errors',
      q: 'from main | where level = "error" | stats count() as n',
      interval: '2s',
      channels: [
        { type: 'webhook', config: { url: `${receiver.url}/hook`, body_template: '{"at": "{{.timestamp}}", "n": {{.result.n}}}' } },
      ],
    };
    const created = await postJson(`${nodes[0]!.api}/alerts`, alert);
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id as string;
    let feedThrough = nodes[2]!;
    const feed = setInterval(() => {
      void postJson(`${feedThrough.api}/ingest`, [{ event: 'boom', fields: { level: 'error' } }]).catch(() => undefined);
    }, 100);
    try {
      await waitFor(() => hooks().length >= 2, 'two notifications', 60_000);
      // Each node names the checker from the members it sees up: a heartbeat late on a loaded
      // machine briefly changes one node's view, so the views are read until they agree.
      const viewsOf = () => Promise.all(nodes.map(async (node) => (await request(`${node.api}/alerts/${id}`)).body.data));
      let views: Awaited<ReturnType<typeof viewsOf>> = [];
      await waitUntil(
        async () => {
          views = await viewsOf();
          return views.every((view) => view.checked_by === views[0].checked_by);
        },
        10_000,
        'every node to name the same checker',
      );
      const checker = views[0].checked_by as string;
      assert.ok(
        nodes.some((node) => node.id === checker),
        `checked_by names a member: ${checker}`,
      );
      for (const view of views) {
        assert.equal(view.checked_by, checker, 'every node names the same checker');
        assert.equal(view.status, 'triggered');
        assert.notEqual(view.last_triggered, null);
      }

      const victim = nodes.find((node) => node.id === checker)!;
      const survivors = nodes.filter((node) => node !== victim);
      feedThrough = survivors[0]!;
      await victim.server.kill();
      const killedAt = new Date().toISOString();
      await waitFor(() => hooks().filter((hook) => hook.at > killedAt).length >= 2, 'notifications after the kill', 60_000);
      const after = await Promise.all(survivors.map(async (node) => (await request(`${node.api}/alerts/${id}`)).body.data));
      for (const view of after) {
        assert.notEqual(view.checked_by, checker, 'another node checks it');
        assert.equal(view.checked_by, after[0].checked_by);
        assert.equal(view.status, 'triggered');
      }
      await victim.restart();
      await waitForUp(
        nodes,
        nodes.map((node) => node.id),
      );
    } finally {
      clearInterval(feed);
    }
    const times = hooks().map((hook) => hook.at);
    assert.equal(new Set(times).size, times.length, 'no tick notified twice');
  });
});
