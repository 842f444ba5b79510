/**
 * The gRPC handler adapter over a real server and client in this process: a refusal travels with
 * its status and reason, and an unexpected failure is INTERNAL with one line of its message, its
 * stack kept for this node's log.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { METADATA, METADATA_SERVICE } from '../../../node/cluster/grpc/proto';
import { GrpcServer, RpcRefusal, unary } from '../../../node/cluster/grpc/server';
import { protocolVersion } from '../../../node/cluster/grpc/wire';
import type * as wire from '../../../node/cluster/grpc/messages';
import { refusal } from '../../cluster/helpers/refusal';

describe('gRPC handler adapter', () => {
  it('answers a refusal with its status and reason, and an unexpected failure with INTERNAL and one line, never a stack', async () => {
    const logged: Error[] = [];
    const server = new GrpcServer();
    const apply = async (request: wire.ApplyRequest): Promise<wire.ApplyReply> => {
      if (request.write_json === 'refuse') throw new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-write', 'the write is no write');
      if (request.write_json === 'sync') return (null as unknown as { crash(): wire.ApplyReply }).crash();
      const error = new Error(`the store broke\n${'    at somewhere (store.js:1:1)\n'.repeat(3)}`);
      throw error;
    };
    server.addService(METADATA_SERVICE, { Apply: unary(apply, (error) => logged.push(error)) });
    const port = await server.listen('127.0.0.1:0');
    const peers = new PeerClients(1000);
    const call = (json: string) =>
      peers.call(`127.0.0.1:${port}`, METADATA.Apply, { protocol_version: protocolVersion(), write_json: json }, 5_000);
    try {
      const refused = await refusal(call('refuse'));
      assert.equal(refused.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(refused.reason, 'invalid-write');
      assert.equal(refused.details, 'the write is no write');

      const failed = await refusal(call('throw'));
      assert.equal(failed.code, grpc.status.INTERNAL);
      assert.equal(failed.details, 'the call failed on this node (its log has the details): the store broke');
      const crashed = await refusal(call('sync'));
      assert.equal(crashed.code, grpc.status.INTERNAL);
      assert.match(crashed.details, /^the call failed on this node \(its log has the details\): Cannot read properties of null/);
      assert.doesNotMatch(crashed.details, /\n/);
      assert.equal(logged.length, 2, 'each failure is logged here, stack and all');
      assert.match(logged[0]!.message, /at somewhere/);
    } finally {
      peers.close();
      await server.close(100);
    }
  });
});
