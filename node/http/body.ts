/**
 * Request bodies: every route gets the raw bytes (our parsers give clearer errors than a generic
 * JSON parser and skip a copy), read against the live `ingest.max_body_size` and decompressed
 * when `Content-Encoding: gzip` (or deflate) says so. Over the limit: 413, or for routes that
 * truncate (raw ingest), the bytes up to the limit and a flag. Routes whose body fastify
 * validates with a JSON schema (`bodyFormat: 'json'`) get the parsed JSON value instead.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'http';
import zlib from 'zlib';
import { ApiError, invalidJson, invalidRequest } from '../core/errors';

export interface RawBody {
  bytes: Buffer;
  /** True when the body was cut at the size limit (only for truncating routes). */
  truncated: boolean;
  /** Bytes received on the wire (before decompression). */
  wireBytes: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `truncate`: cut an oversized body at the limit instead of answering 413. */
    bodyLimitMode?: 'reject' | 'truncate';
    /** `json`: the body is parsed here (400 INVALID_JSON when it is not JSON) for the route's schema. */
    bodyFormat?: 'raw' | 'json';
    /** A body the route takes, quoted when a body is not JSON at all (a query sent as plain text). */
    bodyExample?: string;
    /** A size limit of the route's own, in bytes, instead of `ingest.max_body_size`. */
    ownBodyLimit?: number;
  }
}

const tooLarge = (limit: number, own: boolean): ApiError =>
  new ApiError(
    'PAYLOAD_TOO_LARGE',
    own ? `request body exceeds this endpoint's limit (${limit} bytes)` : `request body exceeds ingest.max_body_size (${limit} bytes)`,
  );

/**
 * Collects a body up to `limit` bytes *after* decompression. Compressed bodies are inflated as
 * they arrive, so a truncating route keeps the complete prefix even when the cut falls inside the
 * compressed stream, and a bomb is stopped at the limit. The rest of the request is drained so
 * the client can read the answer.
 */
function readBody(payload: IncomingMessage, encoding: string, limit: number, truncate: boolean, ownLimit: boolean): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const inflater =
      encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : null;
    const source: NodeJS.ReadableStream = inflater ?? payload;
    const chunks: Buffer[] = [];
    let wireBytes = 0;
    let kept = 0;
    let settled = false;
    let truncated = false;
    payload.on('data', (chunk: Buffer) => (wireBytes += chunk.length));
    const finish = (error: ApiError | null): void => {
      if (settled) return;
      settled = true;
      if (error !== null) reject(error);
      else resolve({ bytes: Buffer.concat(chunks, kept), truncated, wireBytes });
    };
    /** Stops reading the (decompressed) body but keeps draining the request. */
    const stopReading = (): void => {
      if (inflater !== null) {
        payload.unpipe(inflater);
        inflater.destroy();
      }
      payload.resume();
    };
    source.on('data', (chunk: Buffer) => {
      if (settled || truncated) return;
      if (kept + chunk.length > limit) {
        if (!truncate) {
          stopReading();
          finish(tooLarge(limit, ownLimit));
          return;
        }
        chunks.push(chunk.subarray(0, limit - kept));
        kept = limit;
        truncated = true;
        stopReading();
        // A truncated body is complete once the client has sent everything.
        if (payload.readableEnded) finish(null);
        else payload.on('end', () => finish(null));
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    source.on('end', () => {
      if (!truncated) finish(null);
    });
    source.on('error', (error: Error) => {
      if (truncated) return;
      stopReading();
      finish(
        inflater !== null && source === inflater
          ? invalidRequest(`the ${encoding} request body could not be decompressed: ${error.message}`)
          : invalidRequest(`could not read the request body: ${error.message}`),
      );
    });
    if (inflater !== null) {
      payload.on('error', (error) => finish(invalidRequest(`could not read the request body: ${error.message}`)));
      payload.pipe(inflater);
    }
  });
}

/** A JSON body's value; an empty body is no body (the route's schema says whether one is needed). */
function jsonValue(bytes: Buffer, example: string | undefined): unknown {
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    // Text that does not even start like JSON is most likely the query itself, sent bare.
    const bare = example !== undefined && !/^\s*[[{"]/.test(text);
    throw invalidJson(
      `the request body is not valid JSON: ${(error as Error).message}${bare ? `; send a JSON object such as ${example}` : ''}`,
    );
  }
}

/** Installs the raw-bytes parser for every content type. `limit()` reads the live setting; a route may have its own (`ownBodyLimit`). */
export function installBodyParser(app: FastifyInstance, limit: () => number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request: FastifyRequest, payload: IncomingMessage, done) => {
    const truncate = request.routeOptions.config?.bodyLimitMode === 'truncate';
    const encoding = String(request.headers['content-encoding'] ?? 'identity')
      .toLowerCase()
      .trim();
    if (!['identity', '', 'gzip', 'x-gzip', 'deflate'].includes(encoding)) {
      payload.resume();
      done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `unsupported Content-Encoding "${encoding}" (use gzip or deflate)`), undefined);
      return;
    }
    const json = request.routeOptions.config?.bodyFormat === 'json';
    const own = request.routeOptions.config?.ownBodyLimit;
    readBody(payload, encoding, own ?? limit(), truncate, own !== undefined).then(
      (body) => {
        let value: unknown = body;
        try {
          if (json) value = jsonValue(body.bytes, request.routeOptions.config?.bodyExample);
        } catch (error) {
          done(error as ApiError, undefined);
          return;
        }
        done(null, value);
      },
      (error: Error) => done(error, undefined),
    );
  });
}

/** The body a route received (an empty body when the request had none). */
export function rawBody(request: FastifyRequest): RawBody {
  const body = request.body as RawBody | undefined;
  return body ?? { bytes: Buffer.alloc(0), truncated: false, wireBytes: 0 };
}
