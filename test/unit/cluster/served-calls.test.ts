/**
 * The edge of every call a node serves, over a real server and client in this process: a refusal
 * whose text holds a lone surrogate (a JSON parser's message quoting half of a peer's emoji) is
 * answered with that half as U+FFFD, where grpc-js's encodeURI used to throw and leave the call
 * unanswered until the caller's deadline; and bytes that are no message of the request type are
 * refused INVALID_ARGUMENT with the reason `undecodable-message`, not grpc-js's INTERNAL.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import type * as wire from '../../../node/cluster/grpc/messages';
import { PeerClients } from '../../../node/cluster/grpc/peers';
import { METADATA, METADATA_SERVICE } from '../../../node/cluster/grpc/proto';
import { GrpcServer, REFUSAL_KEY, RpcRefusal, unary } from '../../../node/cluster/grpc/server';
import { wellFormed, wellFormedDetails } from '../../../node/cluster/grpc/status-details';
import { UNDECODABLE_REFUSAL, undecodableGuard } from '../../../node/cluster/grpc/undecodable';
import { protocolVersion } from '../../../node/cluster/grpc/wire';
import { refusal } from '../../cluster/helpers/refusal';

const CALL_MS = 3_000;

describe('served gRPC calls: well-formed status text, undecodable requests', function () {
  this.timeout(20_000);
  let server: GrpcServer;
  let address: string;
  const handled: string[] = [];

  before(async () => {
    server = new GrpcServer({ interceptors: [wellFormedDetails, undecodableGuard] });
    // As Metadata.Apply refuses a write that is not JSON: with the parser's message.
    const apply = async (request: wire.ApplyRequest): Promise<wire.ApplyReply> => {
      handled.push(request.write_json);
      try {
        JSON.parse(request.write_json);
      } catch (error) {
        throw new RpcRefusal(grpc.status.INVALID_ARGUMENT, 'invalid-write', `the write is not JSON: ${(error as Error).message}`);
      }
      return { protocol_version: protocolVersion(), version: 1, record_json: '' };
    };
    server.addService(METADATA_SERVICE, { Apply: unary(apply, () => undefined) });
    address = `127.0.0.1:${await server.listen('127.0.0.1:0')}`;
  });

  after(async () => {
    await server.close(100);
  });

  it('replaces lone surrogates with U+FFFD and keeps pairs', () => {
    assert.equal(wellFormed('a\ud800b'), 'a\ufffdb');
    assert.equal(wellFormed('\udc00'), '\ufffd');
    assert.equal(wellFormed('\ud83d\ude00 ok \ud83d'), '\ud83d\ude00 ok \ufffd');
    assert.equal(wellFormed('plain'), 'plain');
  });

  it("answers a refusal whose message holds a lone surrogate, before the caller's deadline", async () => {
    const peers = new PeerClients(1000);
    try {
      // JSON.parse names the offending token by one UTF-16 unit: half of U+10000.
      const refused = await refusal(
        peers.call(address, METADATA.Apply, { protocol_version: protocolVersion(), write_json: '\u{10000}' }, CALL_MS),
      );
      assert.equal(refused.code, grpc.status.INVALID_ARGUMENT, refused.details);
      assert.equal(refused.reason, 'invalid-write');
      assert.match(refused.details, /^the write is not JSON: Unexpected token '\ufffd'/);
    } finally {
      peers.close();
    }
  });

  it('refuses bytes that are no message of the request type INVALID_ARGUMENT, before the handler runs', async () => {
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    const identity = (bytes: Buffer): Buffer => bytes;
    const before = handled.length;
    try {
      // A tag of wire type 7, which protobuf does not have.
      const error = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.makeUnaryRequest(
          METADATA.Apply.path,
          identity,
          identity,
          Buffer.from([0x0f]),
          new grpc.Metadata(),
          { deadline: Date.now() + CALL_MS },
          (failure) => resolve(failure ?? null),
        ),
      );
      assert.ok(error !== null, 'the call was refused');
      assert.equal(error.code, grpc.status.INVALID_ARGUMENT, error.details);
      assert.equal(error.metadata.get(REFUSAL_KEY)[0], UNDECODABLE_REFUSAL);
      assert.match(error.details, /^the request to \/trawl\.v1\.Metadata\/Apply is not a message of its type: /);
      assert.equal(handled.length, before, 'the handler did not run');
    } finally {
      client.close();
    }
  });
});
