/**
 * The audit log in a cluster of three (replication 2, auth on): a key made, a saved query created
 * and a token refused through each node are each recorded once, by the node that took the
 * request, and every node's `GET /audit` answers all of them; a job canceled and a node removed and
 * forgotten through a node that passes the request on (to the job's node, to the master) are each
 * recorded once, by the node that took it.
 */
import { strict as assert } from 'assert';
import { assertError, waitUntil } from '../helpers/api';
import { bearer, makeKey } from '../helpers/auth';
import { postJson, request } from '../helpers/server';
import { startClusteredServers, stopClusteredServers, waitForUp, type ClusteredServer } from './helpers/clustered-servers';

const ROOT = 'the audit cluster root token';

interface Entry {
  action: string;
  outcome: string;
  node: string;
  client_ip: string;
  method: string;
  target: string | null;
  target_name: string | null;
  path: string | null;
  reason: string | null;
  actor_key_name: string | null;
}

describe('cluster: audit log', function () {
  this.timeout(180_000);
  let nodes: ClusteredServer[];

  before(async () => {
    nodes = await startClusteredServers(3, {
      set: { 'auth.enabled': true, 'cluster.replication_factor': 2 },
      setForNode: (index): Record<string, string> => (index === 0 ? { 'auth.root_token': ROOT } : {}),
      headers: bearer(ROOT),
    });
  });

  after(async () => {
    await stopClusteredServers(nodes ?? []);
  });

  it('records each action once, on the node that took it, and every node answers all of them', async () => {
    // Refusals while the nodes came up (a node asked before the root key reached it) are not this test's.
    const since = new Date(Date.now() - 1).toISOString();
    const expected: { action: string; node: string; target: string | null; name: string | null; path: string }[] = [];
    for (const node of nodes) {
      const key = await makeKey(node.api, ROOT, { name: `key via ${node.id}`, scope: 'query' });
      expected.push({ action: 'auth.key.create', node: node.id, target: key.id, name: `key via ${node.id}`, path: '/api/v1/auth/keys' });
      const saved = await postJson(
        `${node.api}/queries`,
        { name: `errors via ${node.id}`, q: 'from main | where status >= 500' },
        bearer(ROOT),
      );
      assert.equal(saved.status, 201, saved.text);
      const id: string = saved.body.data.id;
      expected.push({ action: 'saved_query.create', node: node.id, target: id, name: `errors via ${node.id}`, path: '/api/v1/queries' });
      assertError(await request(`${node.api}/status`, { headers: bearer(`wrong token for ${node.id}`) }), 401, 'INVALID_TOKEN');
      expected.push({ action: 'auth.refused', node: node.id, target: null, name: null, path: '/api/v1/status' });
    }

    const matches = (entry: Entry, want: (typeof expected)[number]): boolean =>
      entry.action === want.action && entry.node === want.node && entry.target === want.target && entry.path === want.path;
    for (const reader of nodes) {
      let entries: Entry[] = [];
      let partial = false;
      // Acknowledged before each answer: the wait covers only a replica that was slow to answer the read.
      await waitUntil(
        async () => {
          const answer = await request(`${reader.api}/audit?limit=1000&from=${since}`, { headers: bearer(ROOT) });
          assert.equal(answer.status, 200, `${reader.id}: ${answer.text}`);
          entries = answer.body.data.entries;
          partial = answer.body.meta.partial === true;
          return !partial && expected.every((want) => entries.some((entry) => matches(entry, want)));
        },
        10_000,
        `${reader.id} answers every entry`,
      );
      assert.equal(entries.length, expected.length, `${reader.id}: one entry per action:\n${JSON.stringify(entries, null, 1)}`);
      for (const want of expected) {
        const found = entries.filter((entry) => matches(entry, want));
        assert.equal(found.length, 1, `${reader.id}: one ${want.action} entry taken by ${want.node}`);
        assert.equal(found[0]!.target_name, want.name);
        if (want.action === 'auth.refused') assert.equal(found[0]!.reason, 'INVALID_TOKEN');
        else assert.equal(found[0]!.actor_key_name, 'root');
      }
    }
  });

  it('records a job canceled, a node removed and forgotten, each passed on to another node, once, by the node that took it', async () => {
    const since = new Date(Date.now() - 1).toISOString();
    const masterId: string = (await request(`${nodes[0]!.api}/cluster/status`, { headers: bearer(ROOT) })).body.data.master.id;
    const [entry, gone] = nodes.filter((node) => node.id !== masterId);
    // A job of another node, canceled through `entry`: that node runs the job and answers.
    const runner = nodes.find((node) => node !== entry)!;
    const launched = await postJson(`${runner.api}/query`, { q: 'from main | stats count()', wait: 0 }, bearer(ROOT));
    assert.equal(launched.status, 202, launched.text);
    const jobId: string = launched.body.data.job_id;
    const canceled = await request(`${entry!.api}/query/jobs/${jobId}`, { method: 'DELETE', headers: bearer(ROOT) });
    assert.equal(canceled.status, 200, canceled.text);

    const removed = await request(`${entry!.api}/cluster/nodes/${gone!.id}/remove`, { method: 'POST', headers: bearer(ROOT) });
    assert.equal(removed.status, 200, removed.text);
    const effectiveMs = Date.parse(removed.body.data.effective_from);
    await waitUntil(() => Date.now() > effectiveMs, 30_000, 'the removal to take effect');
    await gone!.server.kill();
    const up = nodes.filter((node) => node !== gone);
    await waitForUp(
      up,
      up.map((node) => node.id),
      30_000,
      bearer(ROOT),
    );
    const forgotten = await request(`${entry!.api}/cluster/nodes/${gone!.id}/forget`, { method: 'POST', headers: bearer(ROOT) });
    assert.equal(forgotten.status, 200, forgotten.text);

    const by = { outcome: 'success', node: entry!.id, client_ip: '127.0.0.1', actor_key_name: 'root' };
    const expected = [
      { action: 'query.job.cancel', ...by, method: 'DELETE', path: `/api/v1/query/jobs/${jobId}`, target: jobId },
      ...['remove', 'forget'].map((step) => ({
        action: `cluster.node.${step}`,
        ...by,
        method: 'POST',
        path: `/api/v1/cluster/nodes/${gone!.id}/${step}`,
        target: gone!.id,
      })),
    ];
    for (const reader of up) {
      let entries: Entry[] = [];
      await waitUntil(
        async () => {
          const q = encodeURIComponent('action == "query.job.cancel" or startswith(action, "cluster.")');
          const answer = await request(`${reader.api}/audit?q=${q}&from=${since}`, { headers: bearer(ROOT) });
          assert.equal(answer.status, 200, `${reader.id}: ${answer.text}`);
          entries = answer.body.data.entries;
          return entries.length >= expected.length;
        },
        10_000,
        `${reader.id} answers the three entries`,
      );
      assert.deepEqual(
        [...entries].reverse().map(({ action, outcome, node, client_ip, actor_key_name, method, path, target }) => ({
          action,
          outcome,
          node,
          client_ip,
          actor_key_name,
          method,
          path,
          target,
        })),
        expected,
        `${reader.id}: one entry per action, by the node that took it`,
      );
    }
  });
});
