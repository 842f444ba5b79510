/**
 * A node in a cluster is called by its peers at the addresses it listens on, so a wildcard
 * (`0.0.0.0`, `[::]`) is refused there with the reason; a node alone may listen on one.
 */
import { strict as assert } from 'assert';
import { loadConfig } from '../../../node/config/load';

const SEEDS: [string, string] = ['cluster.seeds', '["10.0.0.1:7481","10.0.0.2:7481"]'];

describe('config: the addresses of a clustered node', () => {
  for (const [key, value] of [
    ['listen', '"0.0.0.0:7480"'],
    ['listen', '"[::]:7480"'],
    ['cluster.grpc_listen', '"0.0.0.0:7481"'],
  ] as const) {
    it(`${key} = ${value} is refused in a cluster, naming the key and why`, () => {
      assert.throws(
        () => loadConfig({ sets: [[key, value], SEEDS] }, {}),
        (error: Error) => error.message.includes(`${key} = ${value}: in a cluster`) && /peers reach this node/.test(error.message),
      );
    });
  }

  it('a node alone may listen on every interface', () => {
    const config = loadConfig({ sets: [['listen', '"0.0.0.0:7480"'], ['cluster.grpc_listen', '"0.0.0.0:7481"']] }, {});
    assert.equal(config.listen, '0.0.0.0:7480');
  });
});
