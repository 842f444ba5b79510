import { strict as assert } from 'assert';
import { clusterHealth, clusterStatus } from '../../../node/cluster/cluster-status';
import type { MemberView } from '../../../node/cluster/membership';
import type { NodeStats } from '../../../node/cluster/node-stats';

const counts = (events: number, segments: number, bufferedEvents: number, indexes: string[]): NodeStats => ({
  events,
  segments,
  bufferedEvents,
  bufferedBytes: bufferedEvents * 10,
  storageBytes: 1000 + events,
  indexes,
  newestEventMicros: null,
});

function view(id: string, up: boolean, stats: NodeStats | null, extra: Partial<MemberView> = {}): MemberView {
  const port = 7000 + Number(id.slice(1));
  return {
    member: { id, http: `127.0.0.1:${port}`, grpc: `127.0.0.1:${port + 1000}`, role: 'all' },
    up,
    lastHeartbeatMs: Date.UTC(2026, 0, 1, 12),
    stats,
    self: false,
    removed: false,
    epochs: [0],
    ...extra,
  };
}

const master = { address: '127.0.0.1:8001', id: 'n1', self: true, up: true };

describe('cluster status', () => {
  it('healthy with every node up: each node with its counts, the counts summed, indexes counted once', () => {
    const status: any = clusterStatus({
      forming: [],
      epochs: [],
      replicationFactor: 1,
      stateVersion: 4,
      members: [view('n1', true, counts(10, 2, 3, ['web', 'db'])), view('n2', true, counts(20, 5, 0, ['web']), { epochs: [1, 2] })],
      master,
      dataDir: '/var/lib/trawl',
    });
    assert.equal(status.status, 'healthy');
    assert.equal(status.node_count, 2);
    assert.equal(status.state_version, 4);
    assert.deepEqual(status.master, { id: 'n1', grpc_address: '127.0.0.1:8001', up: true });
    assert.deepEqual(status.nodes[1], {
      id: 'n2',
      address: '127.0.0.1:7002',
      grpc_address: '127.0.0.1:8002',
      role: 'all',
      state: 'up',
      catching_up: false,
      last_heartbeat: '2026-01-01T12:00:00.000Z',
      master: false,
      removed: false,
      epochs: [1, 2],
      events: 20,
      segments: 5,
      buffered_events: 0,
      storage_bytes: 1020,
      stored_alone: null,
    });
    assert.equal(status.nodes[0].master, true);
    assert.equal(status.index_count, 2);
    assert.equal(status.segment_count, 7);
    assert.equal(status.buffered_events, 3);
    assert.equal(status.buffered_size, 30);
    assert.equal(status.data_dir, '/var/lib/trawl');
  });

  it('degraded with a node down: its counts unknown, the sums over the nodes up', () => {
    const status: any = clusterStatus({
      forming: [],
      epochs: [],
      replicationFactor: 1,
      stateVersion: 4,
      members: [view('n1', true, counts(10, 2, 3, ['web'])), view('n2', false, counts(20, 5, 4, ['db']), { lastHeartbeatMs: null })],
      master,
      dataDir: '/d',
    });
    assert.equal(status.status, 'degraded');
    assert.equal(status.nodes[1].state, 'down');
    assert.equal(status.nodes[1].last_heartbeat, null);
    assert.deepEqual(
      [status.nodes[1].events, status.nodes[1].segments, status.nodes[1].buffered_events, status.nodes[1].storage_bytes],
      [null, null, null, null],
    );
    assert.deepEqual([status.index_count, status.segment_count, status.buffered_events], [1, 2, 3]);
  });

  it('degraded while a node up is catching up (not asked for its keys); a node down is not catching up', () => {
    const status: any = clusterStatus({
      forming: [],
      epochs: [],
      replicationFactor: 1,
      stateVersion: 4,
      members: [view('n1', true, counts(10, 2, 3, ['web'])), view('n2', true, counts(20, 5, 0, ['web'])), view('n3', false, null)],
      master,
      dataDir: '/d',
      catchingUp: (id) => id !== 'n1',
    });
    assert.equal(status.status, 'degraded');
    assert.deepEqual(
      status.nodes.map((node: any) => [node.id, node.state, node.catching_up]),
      [
        ['n1', 'up', false],
        ['n2', 'up', true],
        ['n3', 'down', false],
      ],
    );
  });

  it('a removed node that is down leaves the cluster healthy', () => {
    const status: any = clusterStatus({
      forming: [],
      epochs: [],
      replicationFactor: 1,
      stateVersion: 5,
      members: [view('n1', true, counts(1, 1, 0, [])), view('n2', false, null, { removed: true })],
      master,
      dataDir: '/d',
    });
    assert.equal(status.status, 'healthy');
    assert.equal(status.nodes[1].removed, true);
  });

  it('forming while seeds are awaited; the replication factor, and the epochs that start after now as pending', () => {
    const nowMs = Date.UTC(2026, 0, 1, 12, 30);
    const status: any = clusterStatus({
      forming: ['127.0.0.1:8002'],
      epochs: [
        { epoch: 0, fromMicros: 0, members: ['n1'] },
        { epoch: 1, fromMicros: Date.UTC(2026, 0, 1, 12) * 1000, members: ['n1', 'n2'] },
        { epoch: 2, fromMicros: Date.UTC(2026, 0, 1, 14) * 1000, members: ['n1', 'n2', 'n3'] },
      ],
      replicationFactor: 2,
      stateVersion: 3,
      members: [view('n1', true, null)],
      master,
      dataDir: '/d',
      nowMs,
    });
    assert.equal(status.status, 'forming');
    assert.equal(status.replication_factor, 2);
    assert.deepEqual(status.pending_epochs, [{ epoch: 2, starts_at: '2026-01-01T14:00:00.000Z', members: ['n1', 'n2', 'n3'] }]);
  });

  it('health: degraded while catching up or a member not removed is down, each reason in words', () => {
    const members = [view('n1', true, null), view('n2', false, null), view('n3', false, null, { removed: true })];
    assert.deepEqual(clusterHealth(members, null), {
      degraded: true,
      catching_up: false,
      down_nodes: ['n2'],
      reasons: ['node n2 is down (not heard from within cluster.failure_timeout)'],
    });
    const caughtUp = clusterHealth([view('n1', true, null), view('n3', false, null, { removed: true })], null);
    assert.deepEqual(caughtUp, { degraded: false, catching_up: false, down_nodes: [], reasons: [] });
    const catching = clusterHealth([view('n1', true, null)], 'node n1 has not yet heard every member');
    assert.deepEqual([catching.degraded, catching.catching_up, catching.reasons], [true, true, ['node n1 has not yet heard every member']]);
  });
});
