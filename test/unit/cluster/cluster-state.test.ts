import { strict as assert } from 'assert';
import fc from 'fast-check';
import {
  forgetProblem,
  foundCluster,
  isForgottenIn,
  joinConflict,
  parseClusterState,
  removeProblem,
  storedAloneConflict,
  withForgotten,
  withFormed,
  withJoined,
  withRemoved,
  type ClusterState,
  type Member,
} from '../../../node/cluster/cluster-state';
import { successionProblem } from '../../../node/cluster/state-succession';

const HOUR = 3_600_000_000;
const member = (id: string, port = 7000 + Number(id.replace(/\D/g, '') || 0)): Member => ({
  id,
  http: `127.0.0.1:${port}`,
  grpc: `127.0.0.1:${port + 1000}`,
  role: 'all',
});

describe('cluster state', () => {
  it('a new cluster is its master alone, in ring epoch 0 from the beginning of time, dealt', () => {
    assert.deepEqual(foundCluster(member('a1')), {
      version: 1,
      members: [member('a1')],
      epochs: [{ epoch: 0, fromMicros: 0, members: ['a1'], layout: 'dealt' }],
      removed: [],
      forming: [],
      storedAlone: [],
      forgotten: [],
    });
  });

  it('a join adds the member and a ring epoch from the given start; announcing itself again changes nothing', () => {
    const founded = foundCluster(member('n2'));
    const joined = withJoined(founded, member('n1'), 10 * HOUR);
    assert.deepEqual(joined, {
      version: 2,
      members: [member('n1'), member('n2')],
      epochs: [
        { epoch: 0, fromMicros: 0, members: ['n2'], layout: 'dealt' },
        { epoch: 1, fromMicros: 10 * HOUR, members: ['n1', 'n2'], layout: 'dealt' },
      ],
      removed: [],
      forming: [],
      storedAlone: [],
      forgotten: [],
    });
    assert.equal(withJoined(joined, member('n1'), 20 * HOUR), joined);
  });

  it('a forming cluster takes its seeds into ring epoch 0 as they join, and is formed when the last one has', () => {
    const seeds = [member('n1').grpc, member('n2').grpc, member('n3').grpc];
    const founded = foundCluster(member('n1'), seeds);
    assert.deepEqual(founded.forming, [member('n2').grpc, member('n3').grpc]);
    const second = withJoined(founded, member('n3'), 10 * HOUR);
    assert.deepEqual(second.epochs, [{ epoch: 0, fromMicros: 0, members: ['n1', 'n3'], layout: 'dealt' }], 'no new epoch while forming');
    assert.deepEqual(second.forming, [member('n2').grpc]);
    const formed = withJoined(second, member('n2'), 10 * HOUR);
    assert.deepEqual(formed.epochs, [{ epoch: 0, fromMicros: 0, members: ['n1', 'n2', 'n3'], layout: 'dealt' }]);
    assert.deepEqual(formed.forming, []);
    const later = withJoined(formed, member('n4'), 10 * HOUR);
    assert.deepEqual(
      later.epochs[1],
      { epoch: 1, fromMicros: 10 * HOUR, members: ['n1', 'n2', 'n3', 'n4'], layout: 'dealt' },
      'once formed, a join starts an epoch ahead',
    );
  });

  it('a cluster formed without a seed that did not join in time places that seed in a later epoch', () => {
    const seeds = [member('n1').grpc, member('n2').grpc];
    const formed = withFormed(foundCluster(member('n1'), seeds));
    assert.deepEqual(formed.forming, []);
    assert.equal(formed.version, 2);
    assert.equal(withFormed(formed), formed, 'forming again changes nothing');
    const late = withJoined(formed, member('n2'), 10 * HOUR);
    assert.deepEqual(
      late.epochs.map((epoch) => epoch.members),
      [['n1'], ['n1', 'n2']],
    );
  });

  it('a stored state without the forming field is read as formed', () => {
    const stored = JSON.parse(JSON.stringify(foundCluster(member('n1'))));
    delete stored.forming;
    assert.deepEqual(parseClusterState(stored).forming, []);
  });

  it('a member that comes back with another HTTP address or role is updated without a new epoch', () => {
    const joined = withJoined(foundCluster(member('n1')), member('n2'), 10 * HOUR);
    const moved = withJoined(joined, { ...member('n2'), http: '127.0.0.1:9999', role: 'shard' }, 20 * HOUR);
    assert.equal(moved.version, 3);
    assert.deepEqual(moved.members[1], { ...member('n2'), http: '127.0.0.1:9999', role: 'shard' });
    assert.deepEqual(moved.epochs, joined.epochs);
  });

  it('a new epoch never starts before the one it follows (a master with a slow clock)', () => {
    const joined = withJoined(foundCluster(member('n1')), member('n2'), 10 * HOUR);
    const late = withJoined(joined, member('n3'), 5 * HOUR);
    assert.equal(late.epochs[2]!.fromMicros, 10 * HOUR);
  });

  it('the same id at another gRPC address is a conflict; at its own address it is the same node', () => {
    const state = foundCluster(member('n1'));
    assert.equal(joinConflict(state, member('n1')), null);
    assert.equal(joinConflict(state, { ...member('n1'), http: 'elsewhere:1' }), null);
    assert.deepEqual(joinConflict(state, { ...member('n1'), grpc: '10.0.0.9:7481' }), { kind: 'node-id-taken', holder: member('n1') });
    assert.equal(joinConflict(state, member('n2')), null);
  });

  it('remove: a new epoch without the node, which stays a member; unknown, removed twice or the last in the ring is refused', () => {
    let state = withJoined(foundCluster(member('n1')), member('n2'), 10 * HOUR);
    assert.equal(removeProblem(state, 'n9'), 'unknown-node');
    assert.equal(removeProblem(state, 'n2'), null);
    state = withRemoved(state, 'n2', 12 * HOUR);
    assert.deepEqual(state.epochs[2], { epoch: 2, fromMicros: 12 * HOUR, members: ['n1'], layout: 'dealt' });
    assert.deepEqual(state.removed, ['n2']);
    assert.deepEqual(
      state.members.map((each) => each.id),
      ['n1', 'n2'],
    );
    assert.equal(state.version, 3);
    assert.equal(removeProblem(state, 'n2'), 'already-removed');
    assert.equal(removeProblem(state, 'n1'), 'last-member');
    // A removed node that announces itself again stays out of the ring.
    assert.equal(withJoined(state, member('n2'), 20 * HOUR), state);
  });

  it('forget: a removed node whose removal is in force leaves the members, recorded with the epochs that still list it; its id may join again as a new node', () => {
    let state = withJoined(withJoined(foundCluster(member('n1')), member('n2'), 10 * HOUR), member('n3'), 11 * HOUR);
    assert.equal(forgetProblem(state, 'n9', 0), 'unknown-node');
    assert.equal(forgetProblem(state, 'n3', 0), 'not-removed');
    state = withRemoved(state, 'n3', 12 * HOUR);
    assert.equal(forgetProblem(state, 'n3', 12 * HOUR - 1), 'removal-pending');
    // A later join's epoch ahead does not hold it back: the removal's epoch is in force.
    const joinedLater = withJoined(state, member('n4'), 20 * HOUR);
    assert.equal(forgetProblem(joinedLater, 'n3', 13 * HOUR), null);
    assert.equal(forgetProblem(state, 'n3', 12 * HOUR), null);
    const forgotten = withForgotten(state, 'n3');
    assert.equal(forgotten.version, state.version + 1);
    assert.deepEqual(
      forgotten.members.map((each) => each.id),
      ['n1', 'n2'],
    );
    assert.deepEqual(forgotten.removed, []);
    assert.deepEqual(forgotten.forgotten, [{ id: 'n3', throughEpoch: 3, storedAlone: false }]);
    assert.deepEqual(forgotten.epochs, state.epochs, 'placement of old buckets never changes');
    assert.deepEqual(parseClusterState(JSON.parse(JSON.stringify(forgotten))), forgotten, 'epochs may list a forgotten id');
    // Back as a new node: a new epoch with it; the old epochs' n3 is still the forgotten one.
    const back = withJoined(forgotten, member('n3'), 30 * HOUR);
    assert.deepEqual(back.epochs.at(-1), { epoch: 4, fromMicros: 30 * HOUR, members: ['n1', 'n2', 'n3'], layout: 'dealt' });
    assert.equal(isForgottenIn(back, 'n3', 2), true);
    assert.equal(isForgottenIn(back, 'n3', 4), false);
    assert.equal(isForgottenIn(back, 'n2', 2), false);
    assert.deepEqual(parseClusterState(JSON.parse(JSON.stringify(back))), back);
    // Without the record, an epoch naming a node that is no member does not parse.
    assert.throws(
      () => parseClusterState({ ...JSON.parse(JSON.stringify(forgotten)), forgotten: [] }),
      /node "n3" in ring epoch 2, but neither among its members nor as forgotten/,
    );
  });

  it('forget: the stored-alone entry of a forgotten node stays, given up with it; its id may join again only without events of its own', () => {
    const alone = { node: 'n3', partition: -7, indexes: ['main'], fromMicros: 0, toMicros: HOUR };
    let state = withJoined(withJoined(foundCluster(member('n1')), member('n2'), 10 * HOUR), member('n3'), 11 * HOUR, undefined, alone);
    state = withForgotten(withRemoved(state, 'n3', 12 * HOUR), 'n3');
    assert.deepEqual(state.storedAlone, [alone]);
    assert.deepEqual(state.forgotten, [{ id: 'n3', throughEpoch: 3, storedAlone: true }]);
    assert.deepEqual(parseClusterState(JSON.parse(JSON.stringify(state))), state);
    assert.throws(
      () => parseClusterState({ ...JSON.parse(JSON.stringify(state)), forgotten: [{ id: 'n3', throughEpoch: 3, storedAlone: false }] }),
      /state\.storedAlone names node "n3", which is neither a member nor forgotten with it/,
    );
    assert.match(
      storedAloneConflict(state, { ...alone, fromMicros: 5 * HOUR, toMicros: 6 * HOUR }) ?? 'none',
      /node n3 was forgotten with events it stored alone/,
    );
    assert.equal(storedAloneConflict(state, { ...alone, node: 'n4', partition: -8 }), null);
  });

  it('any sequence of joins and removes keeps versions, epochs and the ring consistent, and survives a round trip', () => {
    const change = fc.oneof(
      fc.record({ kind: fc.constant('join' as const), id: fc.integer({ min: 1, max: 12 }), at: fc.integer({ min: 0, max: 1000 }) }),
      fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 12 }), at: fc.integer({ min: 0, max: 1000 }) }),
    );
    fc.assert(
      fc.property(fc.array(change, { maxLength: 40 }), (changes) => {
        let state: ClusterState = foundCluster(member('n0'));
        for (const { kind, id, at } of changes) {
          const before = state;
          if (kind === 'join') {
            if (joinConflict(state, member(`n${id}`)) !== null) continue;
            state = withJoined(state, member(`n${id}`), at * HOUR);
          } else {
            if (removeProblem(state, `n${id}`) !== null) continue;
            state = withRemoved(state, `n${id}`, at * HOUR);
          }
          assert.ok(state === before || state.version === before.version + 1);
        }
        state.epochs.forEach((epoch, i) => {
          assert.equal(epoch.epoch, i);
          assert.deepEqual(epoch.members, [...epoch.members].sort());
          assert.ok(epoch.members.length > 0);
          if (i > 0) assert.ok(epoch.fromMicros >= state.epochs[i - 1]!.fromMicros);
          for (const id of epoch.members)
            assert.ok(
              state.members.some((each) => each.id === id),
              `${id} of epoch ${i} is a member`,
            );
        });
        const ring = state.epochs.at(-1)!.members;
        for (const id of state.removed) assert.ok(!ring.includes(id), `removed ${id} is out of the ring`);
        for (const each of state.members)
          assert.ok(ring.includes(each.id) !== state.removed.includes(each.id), `${each.id} is in the ring or removed`);
        assert.deepEqual(parseClusterState(JSON.parse(JSON.stringify(state))), state);
      }),
    );
  });

  it('a state that does not parse names the field', () => {
    const good = JSON.parse(JSON.stringify(foundCluster(member('n1'))));
    const broken = (patch: (state: any) => void): unknown => {
      const copy = structuredClone(good);
      patch(copy);
      return copy;
    };
    assert.throws(() => parseClusterState(null), /not an object/);
    assert.throws(() => parseClusterState(broken((s) => (s.version = -1))), /state\.version/);
    assert.throws(
      () => parseClusterState(broken((s) => (s.members[0].role = 'witness'))),
      /state\.members\[0\]\.role must be one of all, coordinator, shard, not "witness"/,
    );
    assert.throws(() => parseClusterState(broken((s) => (s.members[0].grpc = ''))), /state\.members\[0\]\.grpc/);
    assert.throws(() => parseClusterState(broken((s) => (s.epochs[0].fromMicros = 1.5))), /state\.epochs\[0\]\.fromMicros/);
    assert.throws(() => parseClusterState(broken((s) => delete s.removed)), /state\.removed/);
    assert.throws(
      () => parseClusterState(broken((s) => (s.epochs[0].layout = 'striped'))),
      /state\.epochs\[0\]\.layout must be one of dealt or absent, not "striped"/,
    );
  });

  it('a cluster with a member that reads no layouts decides its epochs on the ring; while forming, epoch 0 drops its layout', () => {
    const seeds = [member('n1').grpc, member('n2').grpc];
    const formed = withJoined(foundCluster(member('n1'), seeds), member('n2'), 10 * HOUR, null);
    assert.deepEqual(formed.epochs, [{ epoch: 0, fromMicros: 0, members: ['n1', 'n2'] }]);
    assert.equal(successionProblem(foundCluster(member('n1'), seeds), formed), null, 'nothing was placed while forming: the layout may go');
    const joined = withJoined(formed, member('n3'), 10 * HOUR, null);
    assert.deepEqual(joined.epochs[1], { epoch: 1, fromMicros: 10 * HOUR, members: ['n1', 'n2', 'n3'] });
    const removed = withRemoved(joined, 'n2', 20 * HOUR, null);
    assert.deepEqual(removed.epochs[2], { epoch: 2, fromMicros: 20 * HOUR, members: ['n1', 'n3'] });
    assert.equal(withRemoved(joined, 'n2', 20 * HOUR).epochs[2]!.layout, 'dealt', 'once every member reads layouts');
  });

  it('an epoch stored without a layout (decided before layouts) reads back without one; a join keeps it so', () => {
    const stored = JSON.parse(JSON.stringify(foundCluster(member('n1'))));
    delete stored.epochs[0].layout;
    const parsed = parseClusterState(stored);
    assert.deepEqual(parsed.epochs, [{ epoch: 0, fromMicros: 0, members: ['n1'] }]);
    assert.ok(!('layout' in parsed.epochs[0]!), 'no layout key: the epoch keeps the ring');
    const joined = withJoined(parsed, member('n2'), 10 * HOUR);
    assert.deepEqual(joined.epochs, [
      { epoch: 0, fromMicros: 0, members: ['n1'] },
      { epoch: 1, fromMicros: 10 * HOUR, members: ['n1', 'n2'], layout: 'dealt' },
    ]);
    assert.deepEqual(parseClusterState(JSON.parse(JSON.stringify(joined))), joined, 'the layout survives a round trip through disk');
  });
});
