/**
 * Metadata writes in a cluster: every node's routes write through a ForwardingMetadataWriter, which
 * applies the write itself on the master and otherwise forwards it to the master's Metadata.Apply.
 * The master applies it to its store, pushes the new snapshot with the cluster state (so the caller
 * and every reachable node hold it when the write is answered), then answers. While the master is
 * down a write answers 503 MASTER_UNAVAILABLE naming it; reads stay local and keep working.
 * A refusal travels as the API error it is (code, message and extra fields) in the trailers.
 */
import { status } from '@grpc/grpc-js';
import { ApiError, isErrorCode } from '../core/errors';
import { metadataApiError } from '../metadata/api-error';
import { isMetadataCollection } from '../metadata/collections';
import type { MetadataWriter } from '../metadata/writer';
import type { MetadataApplied, MetadataStore, MetadataWrite } from '../metadata/store';
import type * as wire from './grpc/messages';
import { PeerCallError, type PeerClients } from './grpc/peers';
import { METADATA, METADATA_SERVICE } from './grpc/proto';
import { RpcRefusal, unary, type GrpcServer } from './grpc/server';
import { protocolVersion } from './grpc/wire';
import type { Membership } from './membership';
import { protocolProblem } from './protocol';

const API_ERROR = 'api-error';
const CALL_TIMEOUT_MS = 5_000;

/** Applies a write on the master and pushes the new snapshot before answering. */
async function applyOnMaster(store: MetadataStore, membership: Membership, write: MetadataWrite): Promise<MetadataApplied> {
  const applied = await store.apply(write);
  await membership.publishPayload();
  return applied;
}

const INVALID_WRITE = 'invalid-write';

/**
 * JSON in printable ASCII, every other character as its `\uXXXX` escape: the text of a gRPC
 * trailer (a refusal's facts) may hold nothing else, and a refusal whose details held an emoji
 * (a parse error's suggestion quoting the query) threw when its trailer was set, so the call was
 * never answered. JSON.parse reads it back as it was.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A forwarded write as the store takes it; anything else is refused by name, before the store sees it. */
function metadataWriteOf(json: string): MetadataWrite {
  let write: unknown;
  try {
    write = JSON.parse(json);
  } catch (error) {
    throw new RpcRefusal(status.INVALID_ARGUMENT, INVALID_WRITE, `the write is not JSON: ${(error as Error).message}`);
  }
  const refuse = (what: string): never => {
    throw new RpcRefusal(status.INVALID_ARGUMENT, INVALID_WRITE, `the write ${what}`);
  };
  if (!isObject(write)) return refuse('is not a JSON object');
  if (typeof write.collection !== 'string' || !isMetadataCollection(write.collection))
    return refuse(`names no metadata collection (${JSON.stringify(write.collection)?.slice(0, 100)})`);
  if (write.op !== 'create' && write.op !== 'replace' && write.op !== 'delete')
    return refuse(`has op ${JSON.stringify(write.op)?.slice(0, 100)}, not create, replace or delete`);
  if (write.op !== 'create' && (typeof write.id !== 'string' || write.id === '')) return refuse(`to ${write.op} names no record id`);
  if (write.op !== 'delete' && !isObject(write.record)) return refuse(`to ${write.op} holds no record object`);
  return write as MetadataWrite;
}

/** The master's Metadata service. */
export function addMetadataService(
  server: GrpcServer,
  membership: Membership,
  store: MetadataStore,
  onFailure: (error: Error) => void,
): void {
  const apply = async (request: wire.ApplyRequest): Promise<wire.ApplyReply> => {
    const problem = protocolProblem(request.protocol_version, 'the caller');
    if (problem !== null) throw new RpcRefusal(status.FAILED_PRECONDITION, 'protocol-version', problem);
    if (!membership.isMaster)
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        'not-master',
        `this node is not the master; the master is ${membership.masterAddress}`,
      );
    const write = metadataWriteOf(request.write_json);
    try {
      const applied = await applyOnMaster(store, membership, write);
      return {
        protocol_version: protocolVersion(),
        version: applied.version,
        record_json: applied.record === null ? '' : JSON.stringify(applied.record),
      };
    } catch (error) {
      const api = metadataApiError(error);
      if (!(api instanceof ApiError)) throw error;
      throw new RpcRefusal(status.FAILED_PRECONDITION, API_ERROR, api.message, {
        code: api.code,
        details: asciiJson(api.details),
        status: String(api.status),
      });
    }
  };
  server.addService(METADATA_SERVICE, { Apply: unary(apply, onFailure) });
}

/** Every node's writer: the master applies, any other node forwards to it. */
export class ForwardingMetadataWriter implements MetadataWriter {
  constructor(
    private readonly store: MetadataStore,
    private readonly membership: Membership,
    private readonly peers: PeerClients,
  ) {}

  async write(write: MetadataWrite): Promise<MetadataApplied> {
    if (this.membership.isMaster) return applyOnMaster(this.store, this.membership, write);
    const master = this.membership.masterAddress;
    let reply: wire.ApplyReply;
    try {
      reply = await this.peers.call(
        master,
        METADATA.Apply,
        { protocol_version: protocolVersion(), write_json: JSON.stringify(write) },
        CALL_TIMEOUT_MS,
      );
    } catch (error) {
      throw forwardedError(error, this.membership);
    }
    return { version: reply.version, record: reply.record_json === '' ? null : (JSON.parse(reply.record_json) as Record<string, unknown>) };
  }
}

/** The error's fields sent as a fact; none when a trailer too long was cut (trailer-values.ts): the code, status and message still stand. */
function detailsOf(fact: string | undefined): Record<string, unknown> {
  try {
    const details: unknown = JSON.parse(fact ?? '{}');
    return isObject(details) ? details : {};
  } catch {
    return {};
  }
}

function forwardedError(error: unknown, membership: Membership): unknown {
  if (!(error instanceof PeerCallError)) return error;
  if (error.reason === API_ERROR) {
    const code = error.facts.code ?? 'INTERNAL_ERROR';
    const details = detailsOf(error.facts.details);
    return new ApiError(isErrorCode(code) ? code : 'INTERNAL_ERROR', error.details, details, Number(error.facts.status) || undefined);
  }
  const master = membership.master();
  const name = master.id === null ? `at ${master.address}` : `${master.id} at ${master.address}`;
  return new ApiError(
    'MASTER_UNAVAILABLE',
    `metadata writes go through the cluster's master, ${name}, which ${error.unreachable ? 'is not answering' : `refused the write (${error.details})`}; retry once it is back (reads keep working)`,
  );
}
