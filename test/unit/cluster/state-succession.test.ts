import { strict as assert } from 'assert';
import fc from 'fast-check';
import {
  forgetProblem,
  foundCluster,
  joinConflict,
  removeProblem,
  withForgotten,
  withFormed,
  withJoined,
  withRemoved,
  type ClusterState,
  type Member,
} from '../../../node/cluster/cluster-state';
import { sameState, successionProblem } from '../../../node/cluster/state-succession';

const HOUR = 3_600_000_000;
const member = (id: string, http = 7000 + Number(id.slice(1))): Member => ({
  id,
  http: `127.0.0.1:${http}`,
  grpc: `127.0.0.1:${http + 1000}`,
  role: 'all',
});

/** What the master may decide next: a join (new node or new HTTP address), a removal, a forget, the end of forming. */
type Operation =
  { kind: 'join'; id: number; http: number } | { kind: 'remove'; id: number } | { kind: 'forget'; id: number } | { kind: 'formed' };

function decide(state: ClusterState, operation: Operation, at: number): ClusterState {
  if (operation.kind === 'formed') return withFormed(state);
  const id = `n${operation.id}`;
  if (operation.kind === 'remove') return removeProblem(state, id) === null ? withRemoved(state, id, at) : state;
  if (operation.kind === 'forget') return forgetProblem(state, id, at) === null ? withForgotten(state, id) : state;
  const joiner = { ...member(id), http: `127.0.0.1:${9000 + operation.http}` };
  return joinConflict(state, joiner) === null ? withJoined(state, joiner, at) : state;
}

const operation = fc.oneof(
  fc.record({ kind: fc.constant('join' as const), id: fc.integer({ min: 1, max: 8 }), http: fc.integer({ min: 0, max: 20 }) }),
  fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('forget' as const), id: fc.integer({ min: 1, max: 8 }) }),
  fc.constant({ kind: 'formed' as const }),
);

describe('cluster state succession', () => {
  it('every state the master decides can follow every older one, however many versions apart', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 25 }), fc.boolean(), (operations, forming) => {
        const history = [foundCluster(member('n1'), forming ? ['127.0.0.1:8002', '127.0.0.1:8003'] : [])];
        operations.forEach((each, i) => {
          const next = decide(history.at(-1)!, each, (i + 1) * HOUR);
          if (next !== history.at(-1)) history.push(next);
        });
        for (let i = 0; i < history.length; i++) {
          for (let j = i + 1; j < history.length; j++)
            assert.equal(successionProblem(history[i]!, history[j]!), null, `v${history[i]!.version} -> v${history[j]!.version}`);
        }
      }),
    );
  });

  it('refuses a state that drops or moves a member, takes back a removal, rewrites an epoch, or adds more than its versions could', () => {
    const formed = withJoined(withJoined(foundCluster(member('n1')), member('n2'), HOUR), member('n3'), 2 * HOUR);
    const held = withRemoved(formed, 'n3', 3 * HOUR);
    const next = (change: Partial<ClusterState>, version = held.version + 1): ClusterState => ({ ...held, ...change, version });
    const cases: [ClusterState, RegExp][] = [
      [next({ members: held.members.filter((each) => each.id !== 'n2') }), /drops member n2/],
      [next({ members: held.members.map((each) => (each.id === 'n2' ? { ...each, grpc: '10.0.0.9:1' } : each)) }), /moves member n2/],
      [next({ removed: [] }), /takes back the removal of n3/],
      [next({ epochs: held.epochs.slice(1) }), /drops ring epoch 0/],
      [next({ epochs: held.epochs.map((epoch) => ({ ...epoch, members: ['n2'] })) }), /rewrites ring epoch 0/],
      [next({ epochs: held.epochs.map(({ layout: _dropped, ...epoch }) => epoch) }), /rewrites ring epoch 0/],
      [next({ forming: ['127.0.0.1:9'] }), /waits for the seed/],
      [next({ members: [...held.members, member('n4'), member('n5')] }), /adds 2 members/],
      [
        next({ members: held.members.filter((each) => each.id !== 'n2'), forgotten: [{ id: 'n2', throughEpoch: 3, storedAlone: false }] }),
        /forgets n2, which was not removed/,
      ],
      [next({ members: held.members.filter((each) => each.id !== 'n3'), removed: [] }), /drops member n3 without recording it forgotten/],
    ];
    for (const [state, problem] of cases) assert.match(successionProblem(held, state) ?? 'none', problem);
    assert.equal(
      successionProblem(held, next({ members: [...held.members, member('n4'), member('n5')] }, held.version + 2)),
      null,
      'two versions may add two',
    );
    const forgotten = withForgotten(held, 'n3');
    assert.equal(successionProblem(held, forgotten), null, 'a forget drops the removed member it records');
    assert.match(
      successionProblem(forgotten, { ...forgotten, version: forgotten.version + 1, forgotten: [] }) ?? 'none',
      /rewrites the record of forgotten nodes/,
    );
  });

  it('compares states by content', () => {
    const state = withJoined(foundCluster(member('n1')), member('n2'), HOUR);
    assert.ok(sameState(state, JSON.parse(JSON.stringify(state)) as ClusterState));
    assert.ok(!sameState(state, { ...state, removed: ['n2'] }));
  });
});
