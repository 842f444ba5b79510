/**
 * The cluster state through the protocol (node/cluster/grpc/wire.ts and proto/trawl.proto): an
 * epoch's layout arrives as it was sent, and an epoch without one (from a release before layouts)
 * arrives without one, so both place keys as their sender does. A pushed state, whatever its bytes,
 * is refused with a reason or read as a state that crosses the wire unchanged.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { foundCluster, withForgotten, withJoined, withRemoved, type ClusterState, type Member } from '../../../node/cluster/cluster-state';
import { MEMBERSHIP } from '../../../node/cluster/grpc/proto';
import type * as wire from '../../../node/cluster/grpc/messages';
import { UndecodableRequest } from '../../../node/cluster/grpc/undecodable';
import { stateFromWire, stateToWire } from '../../../node/cluster/grpc/wire';
import { fuzzRuns } from '../../helpers/fuzz';

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

/** A state with every part a pushed state can hold: members that joined, one removed and forgotten, a stored-alone entry, a forming seed. */
function richState(): ClusterState {
  const alone = { node: 'n1', partition: -1, indexes: ['main', 'web'], fromMicros: 1_000_000, toMicros: 9_000_000 };
  let state = foundCluster(member('n1', 9000), ['127.0.0.1:9901'], alone);
  state = withJoined(state, member('n2', 9002), 3_600_000_000);
  state = withJoined(state, member('n3', 9004), 7_200_000_000, null);
  state = withRemoved(state, 'n2', 10_800_000_000);
  return withForgotten(state, 'n2');
}

/** A PushState request carrying `state` as a peer sends it. */
function pushBytes(state: ClusterState): Buffer {
  const request = { protocol_version: { major: 1, minor: 8 }, from: 'n1', state: stateToWire(state), payload: null };
  return MEMBERSHIP.PushState.requestSerialize(request as never);
}

/**
 * What a node may do with the state of a pushed request, whatever its bytes: refuse it with an
 * Error that says what is wrong (never a TypeError or RangeError from reading past a check), or
 * take a state that goes out on the wire and back unchanged.
 */
function checkReceived(bytes: Uint8Array): 'undecodable' | 'refused' | 'read' {
  const request = MEMBERSHIP.PushState.requestDeserialize(Buffer.from(bytes)) as wire.PushStateRequest | UndecodableRequest;
  if (request instanceof UndecodableRequest) return 'undecodable';
  let state: ClusterState;
  try {
    state = stateFromWire(request.state);
  } catch (error) {
    assert.ok(error instanceof Error, `threw ${String(error)}`);
    assert.ok(!(error instanceof TypeError) && !(error instanceof RangeError), `${error.name}: ${error.message}`);
    assert.ok(error.message.length > 0);
    return 'refused';
  }
  assert.deepEqual(throughTheWire(state), state);
  return 'read';
}

/** How often each outcome came: a property whose inputs all ended alike would test less than it claims. */
function tally(): { count: (outcome: string) => void; seen: Map<string, number> } {
  const seen = new Map<string, number>();
  return { seen, count: (outcome) => seen.set(outcome, (seen.get(outcome) ?? 0) + 1) };
}

describe('a pushed cluster state, fuzzed', () => {
  const valid = pushBytes(richState());

  it('reads the rich state back unchanged', () => {
    const request = MEMBERSHIP.PushState.requestDeserialize(valid) as wire.PushStateRequest;
    assert.deepEqual(stateFromWire(request.state), richState());
  });

  it('refuses or reads back any bytes edited into a valid request', () => {
    const outcomes = tally();
    const edit = fc.record({ at: fc.nat(valid.length - 1), value: fc.integer({ min: 0, max: 255 }) });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 8 }), fc.nat(valid.length), (edits, keep) => {
        const bytes = Buffer.from(valid);
        for (const { at, value } of edits) bytes[at] = value;
        outcomes.count(checkReceived(bytes));
        outcomes.count(checkReceived(bytes.subarray(0, keep)));
      }),
      { numRuns: fuzzRuns(2000) },
    );
    for (const outcome of ['undecodable', 'refused', 'read']) assert.ok((outcomes.seen.get(outcome) ?? 0) > 0, `no input was ${outcome}`);
  });

  it('refuses or reads back arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        checkReceived(bytes);
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('refuses or reads back states of arbitrary well-typed fields', () => {
    const outcomes = tally();
    const id = fc.oneof(fc.constantFrom('n1', 'n2', 'n3', 'n4', ''), fc.string({ maxLength: 12 }));
    const address = fc.oneof(
      fc.constantFrom('127.0.0.1:9000', '127.0.0.1:9001', '[::1]:9000', 'localhost:1'),
      fc.string({ maxLength: 16 }),
    );
    const number = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.nat(), fc.constantFrom(2 ** 53, 2 ** 64, -0, 1.5));
    const wireState = fc.record({
      version: number,
      members: fc.array(
        fc.record({ id, http: address, grpc: address, role: fc.oneof(fc.constantFrom('all', 'coordinator', 'shard'), fc.string()) }),
        { maxLength: 4 },
      ),
      epochs: fc.array(
        fc.record({
          epoch: number,
          from_micros: number,
          members: fc.array(id, { maxLength: 4 }),
          layout: fc.constantFrom('', 'dealt', 'striped'),
        }),
        { maxLength: 4 },
      ),
      removed: fc.array(id, { maxLength: 3 }),
      forming: fc.array(address, { maxLength: 3 }),
      stored_alone: fc.array(
        fc.record({
          node: id,
          partition: number,
          indexes: fc.array(fc.constantFrom('main', 'web', '', '_audit', 'a|b'), { maxLength: 3 }),
          from_micros: number,
          to_micros: number,
        }),
        { maxLength: 2 },
      ),
      forgotten: fc.array(fc.record({ id, through_epoch: number, stored_alone: fc.boolean() }), { maxLength: 2 }),
    });
    // Fields drawn at random rarely make a whole valid state (some runs made none in 2,000), so
    // valid states are drawn too, and one always comes first: the read path is never left out.
    const validStates = [stateToWire(richState()), stateToWire(foundCluster(member('n1', 9000)))];
    const anyState = fc.oneof({ arbitrary: wireState, weight: 9 }, { arbitrary: fc.constantFrom(...validStates), weight: 1 });
    fc.assert(
      fc.property(anyState, (state) => {
        const request = { protocol_version: { major: 1, minor: 8 }, from: 'n1', state, payload: null };
        outcomes.count(checkReceived(MEMBERSHIP.PushState.requestSerialize(request as never)));
      }),
      { numRuns: fuzzRuns(2000), examples: [[validStates[0]!]] },
    );
    for (const outcome of ['refused', 'read']) assert.ok((outcomes.seen.get(outcome) ?? 0) > 0, `no state was ${outcome}`);
  });
});
