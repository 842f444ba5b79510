/**
 * What a peer's share must satisfy before this node stores it (ShardWrite.Write and ReplayHint),
 * beyond its record adding up (storage/buffer/chunk-check.ts): it comes from another member of
 * the cluster as this node knows it, a hint names its log and seq, its field names are names HTTP
 * ingest stores (node/ingest/common.ts), and each of its keys is one this node owns under the ring
 * epochs it knows. A peer can have a bug and a message can be forged: each refusal names what is
 * wrong, and the refusals are counted and logged once per origin and reason (refusalRecorder).
 */
import { status } from '@grpc/grpc-js';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import { isStorableFieldName } from '../ingest/common';
import type { Logger } from '../core/logger';
import { memberById, type ClusterState } from './cluster-state';
import { RpcRefusal } from './grpc/server';
import { ownersOf } from './ring';

/** A key this node does not own: the writer placed it by epochs this node does not know, or by none. */
export const NOT_OWNER_REFUSAL = 'not-owner';
/** An origin that is no member of the cluster as this node knows it. */
export const UNKNOWN_ORIGIN_REFUSAL = 'unknown-origin';
export const INVALID_RECORD_REFUSAL = 'invalid-record';

/** A hint log is a HintStore's id (16 hex digits); longer names are no log of any node. */
const MAX_HINT_LOG_LENGTH = 64;
const HINT_LOG_PATTERN = /^[A-Za-z0-9_-]+$/;
/** Names from a peer are echoed in messages and logs only this long. */
const ECHO_LENGTH = 140;

/** Untrusted text as messages quote it: cut short, and JSON-escaped so it cannot forge a log line. */
export function quote(text: string): string {
  return JSON.stringify(text.length > ECHO_LENGTH ? `${text.slice(0, ECHO_LENGTH)}...` : text);
}

/** The share's origin is another member of the state this node knows (a removed node stays one, so its hints still arrive). */
export function checkOrigin(origin: string, self: string, state: ClusterState): void {
  if (origin === self)
    throw new RpcRefusal(
      status.INVALID_ARGUMENT,
      'invalid-origin',
      `the share names this node (${self}) as its origin; a node never writes to itself`,
    );
  if (memberById(state, origin) === undefined) {
    throw new RpcRefusal(
      status.FAILED_PRECONDITION,
      UNKNOWN_ORIGIN_REFUSAL,
      `node ${quote(origin)} is not a member of the cluster as node ${self} knows it (state v${state.version}, ${state.members.length} members): nothing was stored`,
    );
  }
}

/** A hint names its origin's hint log and a seq from 1. */
export function checkHint(hintLog: string, seq: number): void {
  if (hintLog.length > MAX_HINT_LOG_LENGTH || !HINT_LOG_PATTERN.test(hintLog) || !(Number.isSafeInteger(seq) && seq > 0)) {
    throw new RpcRefusal(
      status.INVALID_ARGUMENT,
      'invalid-hint',
      `a hint names its log (up to ${MAX_HINT_LOG_LENGTH} letters, digits, '_' or '-') and a seq from 1 (got log ${quote(hintLog)}, seq ${seq})`,
    );
  }
}

/**
 * The chunks' field names are names HTTP ingest stores, every key starts a bucket or a piece of
 * one (a ring epoch's start inside it), and this node owns every key under the epochs it knows.
 */
export function checkChunks(
  chunks: readonly EventChunk[],
  origin: string,
  self: string,
  state: ClusterState,
  replicationFactor: number,
  bucketSpanMicros: number,
): void {
  for (const chunk of chunks) {
    for (const field of chunk.fields) {
      if (!isStorableFieldName(field.name)) {
        throw new RpcRefusal(
          status.INVALID_ARGUMENT,
          INVALID_RECORD_REFUSAL,
          `the record from node ${quote(origin)} holds field ${quote(field.name)}, a name ingest never stores: nothing was stored`,
        );
      }
    }
  }
  for (const chunk of chunks) {
    if (chunk.count === 0) continue;
    const { index, bucket, partition } = chunk.key;
    const at = `index ${index}, bucket ${new Date(bucket / 1000).toISOString()}, partition ${partition}`;
    if (bucket % bucketSpanMicros !== 0 && !state.epochs.some((epoch) => epoch.fromMicros === bucket)) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        NOT_OWNER_REFUSAL,
        `node ${self} knows no bucket or ring epoch that starts at ${at} (state v${state.version}): nothing was stored`,
      );
    }
    let owners: string[];
    try {
      owners = ownersOf(chunk.key, state.epochs, replicationFactor);
    } catch {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        NOT_OWNER_REFUSAL,
        `node ${self} knows no ring epoch that places ${at} (state v${state.version}): nothing was stored`,
      );
    }
    if (!owners.includes(self)) {
      throw new RpcRefusal(
        status.FAILED_PRECONDITION,
        NOT_OWNER_REFUSAL,
        `node ${self} does not own ${at} under the ring epochs it knows (state v${state.version}; its owners are ${owners.join(', ') || 'none'}): nothing was stored`,
      );
    }
  }
}

/** Distinct (origin, reason) pairs logged; past this many, refusals are only counted. */
const MAX_LOGGED_PAIRS = 1024;

/**
 * Counts each refusal of a ShardWrite call by method and reason, and logs the first of each
 * origin and reason (a faulty peer retries: one line says what is wrong with it).
 */
export function refusalRecorder(
  logger: Logger,
  count: (method: string, reason: string) => void,
): (method: string, origin: string, refusal: RpcRefusal) => void {
  const logged = new Set<string>();
  return (method, origin, refusal) => {
    count(method, refusal.reason);
    const pair = `${origin}\n${refusal.reason}`;
    if (logged.has(pair) || logged.size >= MAX_LOGGED_PAIRS) return;
    logged.add(pair);
    logger.warn(
      `cluster: refused ShardWrite.${method} from ${quote(origin)} (${refusal.reason}; later ones from it are only counted): ${refusal.message}`,
    );
  };
}
