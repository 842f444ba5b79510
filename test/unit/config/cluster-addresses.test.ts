/**
 * A node in a cluster is called by its peers at the addresses it listens on, so a wildcard
 * (`0.0.0.0`, `[::]`) is refused there with the reason; a node alone may listen on one. Its id
 * follows the rule peers' ids are checked by (node/config/peer-names.ts).
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
    const config = loadConfig(
      {
        sets: [
          ['listen', '"0.0.0.0:7480"'],
          ['cluster.grpc_listen', '"0.0.0.0:7481"'],
        ],
      },
      {},
    );
    assert.equal(config.listen, '0.0.0.0:7480');
  });

  it('cluster.node_id in a cluster: a host name passes; a path, a space or 254 characters are refused with the rule', () => {
    const config = loadConfig({ sets: [['cluster.node_id', '"web-1.eu_west.example.com"'], SEEDS] }, {});
    assert.equal((config.cluster as Record<string, unknown>).node_id, 'web-1.eu_west.example.com');
    for (const id of ['../../etc', 'web 1', 'x'.repeat(254)]) {
      assert.throws(
        () => loadConfig({ sets: [['cluster.node_id', JSON.stringify(id)], SEEDS] }, {}),
        (error: Error) => error.message.startsWith('cluster.node_id: ') && /letters, digits|at most 253/.test(error.message),
        id,
      );
    }
  });
});
