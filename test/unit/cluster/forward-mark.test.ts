/**
 * The mark of a request one node passes on to another (forward-mark.ts), over a real HTTP server in
 * this process: a request PeerHttp sends with the mark and the proof of cluster.secret is believed;
 * the mark alone from any client, a proof made for another URL or with another secret, or the mark
 * of this node or of no member is not. Without a secret, the mark is believed from an address of
 * the member it names only.
 */
import { strict as assert } from 'assert';
import http from 'http';
import type { AddressInfo } from 'net';
import type { Member } from '../../../node/cluster/cluster-state';
import { FORWARDED_HEADER, isPeerForward, type ForwardedRequest } from '../../../node/cluster/forward-mark';
import { PeerHttp } from '../../../node/cluster/peer-http';

const SECRET = 'the forward-mark test secret, long enough';
const PATH = '/api/v1/cluster/nodes/node3/remove';

describe('cluster: the mark of a forwarded request', () => {
  let server: http.Server;
  let received: ForwardedRequest[] = [];
  let target: Member;
  const sender: Member = { id: 'node1', http: '127.0.0.1:1', grpc: '127.0.0.1:2', role: 'all' };

  before(async () => {
    server = http.createServer((request, response) => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, peer: request.socket.remoteAddress });
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    target = { id: 'node2', http: `127.0.0.1:${(server.address() as AddressInfo).port}`, grpc: '127.0.0.1:3', role: 'all' };
  });

  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  /** What the server received for one request PeerHttp sent as node1. */
  async function sent(secret: string | null, path: string, headers: Record<string, string>): Promise<ForwardedRequest> {
    received = [];
    const peer = new PeerHttp(null, { nodeId: 'node1', secret });
    try {
      const answer = await peer.request(target, path, { method: 'POST', headers });
      await answer.text();
    } finally {
      peer.close();
    }
    assert.equal(received.length, 1);
    return received[0]!;
  }

  it('with cluster.secret, believes the mark of a request that proves it, for its own method and URL only', async () => {
    const members = [sender, target];
    const forwarded = await sent(SECRET, PATH, { [FORWARDED_HEADER]: 'node1' });
    assert.equal(isPeerForward(forwarded, members, 'node2', SECRET), true);
    assert.equal(isPeerForward({ ...forwarded, url: '/api/v1/cluster/nodes/node1/remove' }, members, 'node2', SECRET), false);
    assert.equal(isPeerForward({ ...forwarded, method: 'DELETE' }, members, 'node2', SECRET), false);
    assert.equal(isPeerForward(forwarded, members, 'node2', `${SECRET}, another`), false);
    // The proof is node1's: a mark naming another member with it is not believed.
    const other: Member = { ...sender, id: 'node9' };
    const claimed = { ...forwarded, headers: { ...forwarded.headers, [FORWARDED_HEADER]: 'node9' } };
    assert.equal(isPeerForward(claimed, [...members, other], 'node2', SECRET), false);
    // The mark alone, as any client could send it.
    const bare = await sent(null, PATH, { [FORWARDED_HEADER]: 'node1' });
    assert.equal(isPeerForward(bare, members, 'node2', SECRET), false);
  });

  it('without a secret, believes the mark from an address of the member it names only', async () => {
    const forwarded = await sent(null, PATH, { [FORWARDED_HEADER]: 'node1' });
    assert.equal(isPeerForward(forwarded, [sender, target], 'node2', null), true);
    const elsewhere: Member = { ...sender, http: '10.0.0.7:8080', grpc: '10.0.0.7:9090' };
    assert.equal(isPeerForward(forwarded, [elsewhere, target], 'node2', null), false);
    const byName: Member = { ...sender, http: 'node1.internal:8080', grpc: 'node1.internal:9090' };
    assert.equal(isPeerForward(forwarded, [byName, target], 'node2', null), false);
    assert.equal(isPeerForward(forwarded, [target], 'node2', null), false, 'a mark naming no member');
    const fromSelf = { ...forwarded, headers: { ...forwarded.headers, [FORWARDED_HEADER]: 'node2' } };
    assert.equal(isPeerForward(fromSelf, [sender, target], 'node2', null), false, 'a mark naming this node');
    const unmarked = await sent(null, PATH, {});
    assert.equal(isPeerForward(unmarked, [sender, target], 'node2', null), false);
  });
});
