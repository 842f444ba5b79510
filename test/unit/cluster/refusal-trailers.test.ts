/**
 * A refusal's trailers over a real gRPC server and client in this process: a reason or fact that
 * holds an emoji, half of a surrogate pair or non-Latin text, a fact key with capitals and spaces,
 * or a value longer than any header should be, still answers the call (unary and server stream)
 * with the refusal's status, and each trailer reads as printable ASCII: the UTF-8 bytes of what
 * was not percent-encoded, long values cut. grpc-js used to throw on such a value and leave the
 * call unanswered until the caller's deadline.
 */
import { strict as assert } from 'assert';
import * as grpc from '@grpc/grpc-js';
import { PeerCallError } from '../../../node/cluster/grpc/peers';
import { endWith, FACT_PREFIX, GrpcServer, REFUSAL_KEY, RpcRefusal, unary } from '../../../node/cluster/grpc/server';
import { MAX_TRAILER_VALUE_LENGTH, trailerKey, trailerValue } from '../../../node/cluster/grpc/trailer-values';

const CALL_MS = 3_000;

/** What the test's values are percent-encoded to: each UTF-8 byte as %XX. */
function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

const json = {
  serialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8')),
};
function method(name: string, responseStream: boolean): grpc.MethodDefinition<unknown, unknown> {
  return {
    path: `/trawl.test.Refusals/${name}`,
    requestStream: false,
    responseStream,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  };
}
const REFUSALS_SERVICE = { Unary: method('Unary', false), Stream: method('Stream', true) };

const EMOJI = '\u{1F4A5}';
const CYRILLIC = 'узел недоступен';
const LONG = 'x'.repeat(MAX_TRAILER_VALUE_LENGTH * 3);

/** The refusal both methods answer: every awkward value at once. */
function awkwardRefusal(): RpcRefusal {
  return new RpcRefusal(grpc.status.FAILED_PRECONDITION, `held-by-${EMOJI}`, 'refused with awkward trailers', {
    emoji: `boom ${EMOJI}`,
    half: 'a\ud83db',
    cyrillic: CYRILLIC,
    'Mixed Key': 'plain',
    long: LONG,
  });
}

describe('gRPC refusal trailers: printable ASCII, whatever the refusal holds', function () {
  this.timeout(20_000);
  let server: GrpcServer;
  let client: grpc.Client;

  before(async () => {
    server = new GrpcServer();
    server.addService(REFUSALS_SERVICE, {
      Unary: unary(
        async () => Promise.reject(awkwardRefusal()),
        () => undefined,
      ),
      Stream: (call: grpc.ServerWritableStream<unknown, unknown>) => endWith(call, awkwardRefusal()),
    });
    const port = await server.listen('127.0.0.1:0');
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });

  after(async () => {
    client?.close();
    await server?.close(100);
  });

  const expectedTrailers = {
    [REFUSAL_KEY]: `held-by-${percentEncoded(EMOJI)}`,
    [`${FACT_PREFIX}emoji`]: `boom ${percentEncoded(EMOJI)}`,
    // Half of a pair is U+FFFD, as in the status text.
    [`${FACT_PREFIX}half`]: `a${percentEncoded('\ufffd')}b`,
    [`${FACT_PREFIX}cyrillic`]: CYRILLIC.split(' ').map(percentEncoded).join(' '),
    [`${FACT_PREFIX}mixed_key`]: 'plain',
    [`${FACT_PREFIX}long`]: `${'x'.repeat(MAX_TRAILER_VALUE_LENGTH - 3)}...`,
  };

  function assertRefused(error: grpc.ServiceError | null): void {
    assert.ok(error !== null, 'the call was refused');
    assert.equal(error.code, grpc.status.FAILED_PRECONDITION, error.details);
    assert.equal(error.details, 'refused with awkward trailers');
    const trailers = error.metadata.getMap();
    for (const [key, value] of Object.entries(expectedTrailers)) assert.equal(trailers[key], value, key);
    for (const value of Object.values(trailers)) assert.match(String(value), /^[ -~]*$/);
  }

  it('answers a unary call with its status and the trailers made ASCII, read as facts by the calling node', async () => {
    const error = await new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest(
        REFUSALS_SERVICE.Unary.path,
        json.serialize,
        json.deserialize,
        {},
        new grpc.Metadata(),
        { deadline: Date.now() + CALL_MS },
        (failure) => resolve(failure ?? null),
      ),
    );
    assertRefused(error);
    const refused = PeerCallError.from('peer', error!);
    assert.equal(refused.reason, expectedTrailers[REFUSAL_KEY]);
    assert.equal(refused.facts.cyrillic, expectedTrailers[`${FACT_PREFIX}cyrillic`]);
  });

  it('ends a server stream with its status and the trailers made ASCII', async () => {
    const call = client.makeServerStreamRequest(REFUSALS_SERVICE.Stream.path, json.serialize, json.deserialize, {}, new grpc.Metadata(), {
      deadline: Date.now() + CALL_MS,
    });
    const error = await new Promise<grpc.ServiceError | null>((resolve) => {
      call.on('data', () => undefined);
      call.on('error', (failure: grpc.ServiceError) => resolve(failure));
      call.on('end', () => resolve(null));
    });
    assertRefused(error);
  });

  it('leaves printable ASCII as it is; keys lower-cased, never -bin', () => {
    assert.equal(trailerValue('10.0.0.7:7481 held-at 50%'), '10.0.0.7:7481 held-at 50%');
    assert.equal(trailerValue('tab\there'), 'tab%09here');
    assert.equal(trailerValue(''), '');
    assert.equal(trailerKey('trawl-fact-Held At'), 'trawl-fact-held_at');
    assert.equal(trailerKey('trawl-fact-raw-bin'), 'trawl-fact-raw-bin_');
  });
});
