/**
 * The cluster state through the protocol (node/cluster/grpc/wire.ts and proto/trawl.proto): an
 * epoch's layout arrives as it was sent, and an epoch without one (from a release before layouts)
 * arrives without one, so both place keys as their sender does.
 */
import { strict as assert } from 'assert';
import { foundCluster, withJoined, type ClusterState, type Member } from '../../../node/cluster/cluster-state';
import { MEMBERSHIP } from '../../../node/cluster/grpc/proto';
import { stateFromWire, stateToWire } from '../../../node/cluster/grpc/wire';

const member = (id: string, port: number): Member => ({ id, http: `127.0.0.1:${port}`, grpc: `127.0.0.1:${port + 1}`, role: 'all' });

/** The state as a peer decodes it from the bytes of a PullState reply. */
function throughTheWire(state: ClusterState): ClusterState {
  const bytes = MEMBERSHIP.PullState.responseSerialize({ protocol_version: { major: 1, minor: 4 }, state: stateToWire(state) } as never);
  return stateFromWire(MEMBERSHIP.PullState.responseDeserialize(bytes).state);
}

describe('cluster state on the wire', () => {
  it("keeps each epoch's layout, and an epoch without one stays without", () => {
    const founded = foundCluster(member('n1', 9000));
    const { layout: _none, ...old } = founded.epochs[0]!;
    const state = withJoined({ ...founded, epochs: [old] }, member('n2', 9002), 3_600_000_000);
    assert.deepEqual(
      state.epochs.map((epoch) => epoch.layout),
      [undefined, 'dealt'],
    );
    const received = throughTheWire(state);
    assert.deepEqual(received, state);
    assert.ok(!('layout' in received.epochs[0]!));
  });

  it('refuses a layout it does not know', () => {
    const state = foundCluster(member('n1', 9000));
    const wire = stateToWire(state);
    wire.epochs[0]!.layout = 'striped';
    assert.throws(() => stateFromWire(wire), /state\.epochs\[0\]\.layout must be one of dealt or absent, not "striped"/);
  });
});
