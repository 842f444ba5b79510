/**
 * The proof of cluster.secret: a proof made with the secret is taken for the method it was made
 * for within the freshness window; one made with another secret, for another method, too old or too
 * far ahead, malformed or missing is refused with its reason. Over a real server and client in this
 * process, the guard refuses a call without proof UNAUTHENTICATED before its handler runs, counts
 * each refusal and logs one line per address a minute.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import { checkProof, PROOF_WINDOW_MS, signProof } from '../../../node/cluster/grpc/call-proof';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { proofSender } from '../../../node/cluster/grpc/proof-sender';
import { METADATA, METADATA_SERVICE } from '../../../node/cluster/grpc/proto';
import { REFUSAL_LOG_INTERVAL_MS } from '../../../node/cluster/grpc/refusal-log';
import { SecretGuard } from '../../../node/cluster/grpc/secret-guard';
import { GrpcServer, unary } from '../../../node/cluster/grpc/server';
import { protocolVersion } from '../../../node/cluster/grpc/wire';
import type * as wire from '../../../node/cluster/grpc/messages';
import { refusal } from '../../cluster/helpers/refusal';

const SECRET = 'a-long-shared-secret-0123456789';
const JOIN = '/trawl.v1.Membership/Join';
const NOW = 1_800_000_000_000;

describe('cluster.secret proof', () => {
  it('is taken for the method it was made for, within the window either way', () => {
    for (const at of [NOW, NOW - PROOF_WINDOW_MS, NOW + PROOF_WINDOW_MS]) {
      const check = checkProof(SECRET, signProof(SECRET, 'node.1', JOIN, at), JOIN, NOW);
      assert.deepEqual(check, { ok: true, nodeId: 'node.1' });
    }
  });

  it('never holds the secret', () => {
    assert.ok(!signProof(SECRET, 'node1', JOIN, NOW).includes(SECRET));
  });

  it('refuses another secret, another method, another node id and a changed time as wrong-proof', () => {
    const proof = signProof(SECRET, 'node1', JOIN, NOW);
    const [, , mac] = proof.split('.');
    const cases = [
      checkProof(SECRET, signProof('another-secret-0123456789', 'node1', JOIN, NOW), JOIN, NOW),
      checkProof(SECRET, proof, '/trawl.v1.ShardWrite/Write', NOW),
      checkProof(SECRET, `node2.${NOW}.${mac}`, JOIN, NOW),
      checkProof(SECRET, `node1.${NOW + 1}.${mac}`, JOIN, NOW),
    ];
    for (const check of cases) {
      assert.equal(check.ok, false);
      assert.equal(!check.ok && check.reason, 'wrong-proof');
      assert.match(!check.ok ? check.message : '', /every node of a cluster sets the same one/);
    }
  });

  it('refuses a proof older or newer than the window as stale-proof, whatever its MAC', () => {
    for (const at of [NOW - PROOF_WINDOW_MS - 1, NOW + PROOF_WINDOW_MS + 1]) {
      const check = checkProof(SECRET, signProof(SECRET, 'node1', JOIN, at), JOIN, NOW);
      assert.equal(!check.ok && check.reason, 'stale-proof');
      assert.match(!check.ok ? check.message : '', /clocks in sync/);
    }
  });

  it('refuses a missing proof as no-proof, saying to set cluster.secret', () => {
    for (const proof of [undefined, '']) {
      const check = checkProof(SECRET, proof, JOIN, NOW);
      assert.equal(!check.ok && check.reason, 'no-proof');
      assert.match(!check.ok ? check.message : '', /set cluster\.secret on the calling node/);
    }
  });

  it('refuses a malformed proof as malformed-proof', () => {
    const good = signProof(SECRET, 'node1', JOIN, NOW);
    for (const proof of [
      'node1',
      `node1.${NOW}`,
      `node1.${NOW}.zz`,
      `${good}0`,
      `.${NOW}.${'a'.repeat(64)}`,
      `node1.-5.${'a'.repeat(64)}`,
      `${good},${good}`,
    ]) {
      const check = checkProof(SECRET, proof, JOIN, NOW);
      assert.equal(!check.ok && check.reason, 'malformed-proof', proof);
    }
  });
});

describe('cluster.secret guard on a gRPC server', () => {
  it('serves a call with proof, refuses one without UNAUTHENTICATED before its handler runs, counts each and logs one line per address a minute', async () => {
    let now = Date.now();
    const lines: string[] = [];
    const logger = { info: () => undefined, warn: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const guard = new SecretGuard(SECRET, logger, () => now);
    const counted: string[] = [];
    guard.observe((service, method, reason) => counted.push(`${service}.${method} ${reason}`));
    let handled = 0;
    const server = new GrpcServer({ interceptors: [guard.interceptor] });
    const apply = async (): Promise<wire.ApplyReply> => {
      handled += 1;
      return { protocol_version: protocolVersion(), version: 1, record_json: '{}' };
    };
    server.addService(METADATA_SERVICE, { Apply: unary(apply, () => undefined) });
    const port = await server.listen('127.0.0.1:0');
    const member = new PeerClients(1000, [proofSender(SECRET, 'node1')]);
    const stranger = new PeerClients(1000);
    const request = { protocol_version: protocolVersion(), write_json: '{}' };
    try {
      await member.call(`127.0.0.1:${port}`, METADATA.Apply, request, 5_000);
      assert.equal(handled, 1);

      for (let i = 0; i < 3; i++) {
        const refused = await refusal(stranger.call(`127.0.0.1:${port}`, METADATA.Apply, request, 5_000));
        assert.equal(refused.code, grpc.status.UNAUTHENTICATED);
        assert.equal(refused.reason, 'no-proof');
        assert.match(refused.details, /set cluster\.secret/);
      }
      assert.equal(handled, 1, 'no refused call reached the handler');
      assert.deepEqual(counted, Array(3).fill('Metadata.Apply no-proof'));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0]!, /refused Metadata\.Apply from 127\.0\.0\.1:\d+ \(no-proof\)/);

      now += REFUSAL_LOG_INTERVAL_MS;
      await refusal(stranger.call(`127.0.0.1:${port}`, METADATA.Apply, request, 5_000));
      assert.equal(lines.length, 2, 'a minute later the address is logged again');
    } finally {
      member.close();
      stranger.close();
      await server.close(100);
    }
  });
});
