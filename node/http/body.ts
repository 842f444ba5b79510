/**
 * Request bodies: every route gets the raw bytes (our parsers give clearer errors than a generic
 * JSON parser and skip a copy), read against the live `ingest.max_body_size` and decompressed
 * when `Content-Encoding: gzip` (or deflate) says so. Over the limit: 413, or for routes that
 * truncate (raw ingest), the bytes up to the limit and a flag.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'http';
import zlib from 'zlib';
import { ApiError, invalidRequest } from '../errors';

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
  }
}

const tooLarge = (limit: number): ApiError =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ingest.max_body_size (${limit} bytes)`);

function readStream(stream: IncomingMessage, limit: number, truncate: boolean): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let kept = 0;
    let truncated = false;
    let failed = false;
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (failed || truncated) return; // keep draining so the client can read our answer
      if (kept + chunk.length > limit) {
        if (!truncate) {
          failed = true;
          reject(tooLarge(limit));
          return;
        }
        chunks.push(chunk.subarray(0, limit - kept));
        kept = limit;
        truncated = true;
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    stream.on('end', () => {
      if (!failed) resolve({ bytes: Buffer.concat(chunks, kept), truncated, wireBytes: received });
    });
    stream.on('error', (error) => {
      if (!failed) reject(invalidRequest(`could not read the request body: ${error.message}`));
    });
  });
}

function decompress(body: RawBody, encoding: string, limit: number, truncate: boolean): Promise<RawBody> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer): void => {
      if (error === null) {
        resolve({ bytes: result, truncated: body.truncated, wireBytes: body.wireBytes });
      } else if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        if (!truncate) reject(tooLarge(limit));
        else {
          // Decompress again, keeping what fits: the stream API stops at the limit.
          const unzip = encoding === 'gzip' ? zlib.createGunzip() : zlib.createInflate();
          const chunks: Buffer[] = [];
          let kept = 0;
          unzip.on('data', (chunk: Buffer) => {
            if (kept >= limit) return;
            const part = chunk.subarray(0, limit - kept);
            chunks.push(part);
            kept += part.length;
            if (kept >= limit) unzip.destroy();
          });
          unzip.on('close', () => resolve({ bytes: Buffer.concat(chunks), truncated: true, wireBytes: body.wireBytes }));
          unzip.on('error', () => undefined);
          unzip.end(body.bytes);
        }
      } else reject(invalidRequest(`the ${encoding} request body could not be decompressed: ${error.message}`));
    };
    const options = { maxOutputLength: limit };
    if (encoding === 'gzip' || encoding === 'x-gzip') zlib.gunzip(body.bytes, options, done);
    else zlib.inflate(body.bytes, options, done);
  });
}

/** Installs the raw-bytes parser for every content type. `limit()` reads the live setting. */
export function installBodyParser(app: FastifyInstance, limit: () => number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request: FastifyRequest, payload: IncomingMessage, done) => {
    const truncate = request.routeOptions.config?.bodyLimitMode === 'truncate';
    const max = limit();
    const encoding = String(request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
    readStream(payload, max, truncate)
      .then((body) => {
        if (encoding === 'identity' || encoding === '') return body;
        if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') return decompress(body, encoding, max, truncate);
        throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `unsupported Content-Encoding "${encoding}" (use gzip or deflate)`);
      })
      .then((body) => done(null, body), (error: Error) => done(error, undefined));
  });
}

/** The body a route received (an empty body when the request had none). */
export function rawBody(request: FastifyRequest): RawBody {
  const body = request.body as RawBody | undefined;
  return body ?? { bytes: Buffer.alloc(0), truncated: false, wireBytes: 0 };
}
