/**
 * The node HTTP(S) server under fastify. Node answers some requests itself, before fastify sees
 * them: one it cannot parse, headers over 16 KB, a request not received in time, an Expect other
 * than 100-continue, CONNECT. Those answers are the error envelope (docs/api.md) here too. `http.request_timeout`
 * bounds receiving a request (headers and body), read live from the settings.
 */
import http, { type IncomingMessage, type ServerResponse } from 'http';
import https from 'https';
import type { Duplex } from 'stream';
import type { FastifyServerFactory } from 'fastify';
import { ApiError } from '../core/errors';
import type { TlsMaterial } from '../core/tls-material';
import { errorReply, pathOf, type ErrorReply } from './errors';

/** How often node checks connections against the request timeout: a stalled request is cut at most this much late. */
const TIMEOUT_CHECK_INTERVAL_MS = 250;
/** Idle keep-alive connections stay open this long (longer than the 60 s shippers' pools keep them). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface NodeServerOptions {
  /** `http.request_timeout` in milliseconds, read at every check (0: no limit). */
  requestTimeoutMs: () => number;
  /** The certificate and key when `tls.enabled`; a reload of it applies to the connections made after it. */
  tls: TlsMaterial | null;
}

function envelopeResponse(reply: ErrorReply): { head: Record<string, string | number>; body: string } {
  const body = JSON.stringify(reply.body);
  return {
    head: { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' },
    body,
  };
}

/** An error answer written straight on a socket that node's HTTP layer has given up on. */
function writeOnSocket(socket: Duplex, reply: ErrorReply): void {
  const { head, body } = envelopeResponse(reply);
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`HTTP/1.1 ${reply.status} ${http.STATUS_CODES[reply.status] ?? ''}\r\n${lines.join('')}\r\n${body}`);
}

/**
 * `clientError`: node could not read a request (malformed, too large, or not received within the
 * request timeout). Answers on the socket unless a response on it has already begun, then closes it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (socket.destroyed) return;
  // Node keeps the response in progress on the socket only in this field; once its head is out, nothing more may be written.
  const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
  const gone = error.code === 'ECONNRESET' || error.code === 'EPIPE';
  if (!gone && socket.writable && (response === null || !response.headersSent)) {
    writeOnSocket(socket, errorReply(error, pathOf(response?.req.url)));
  }
  socket.destroy();
}

/** `checkExpectation`: an Expect header other than 100-continue (node would answer 417 with no body). */
function refuseExpectation(request: IncomingMessage, response: ServerResponse): void {
  const error = new ApiError('EXPECTATION_FAILED', `Expect: ${request.headers.expect ?? ''} is not supported; only 100-continue is`);
  const { head, body } = envelopeResponse(errorReply(error, pathOf(request.url)));
  response.writeHead(error.status, head);
  response.end(body);
}

/** `connect`: a proxy tunnel request (node would close the connection without an answer). */
function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  writeOnSocket(socket, errorReply(new ApiError('METHOD_NOT_ALLOWED', 'CONNECT is not supported: this server is not a proxy'), null));
  socket.destroy();
}

/**
 * Node reads `requestTimeout` (the whole request) and `headersTimeout` at every connection check;
 * defining them over the live setting applies a SIGHUP or PATCH /config reload at once. Neither
 * bounds the response: a stream or an SSE answer may run as long as it needs.
 */
function followRequestTimeout(server: http.Server, timeoutMs: () => number): void {
  const live: PropertyDescriptor = { get: () => Math.ceil(timeoutMs()), enumerable: true, configurable: true };
  Object.defineProperty(server, 'requestTimeout', live);
  Object.defineProperty(server, 'headersTimeout', live);
}

/**
 * Makes every server fastify listens on (one per address when a host name resolves to several), so
 * each gets the same timeouts and error answers. Pass `answerClientError` as fastify's
 * `clientErrorHandler` too: fastify adds it to the first server again, where the second call finds
 * the socket already closed.
 */
export function nodeServerFactory(options: NodeServerOptions): FastifyServerFactory {
  const serverOptions: http.ServerOptions = {
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    // A request without Host is refused by the onRequest hook, in the envelope (node would send an empty 400).
    requireHostHeader: false,
  };
  return (handler) => {
    const { tls } = options;
    let server: http.Server | https.Server;
    if (tls === null) server = http.createServer(serverOptions, handler);
    else {
      const secure = https.createServer({ ...serverOptions, cert: tls.files.cert, key: tls.files.key }, handler);
      const stop = tls.onChange((files) => secure.setSecureContext({ cert: files.cert, key: files.key }));
      secure.once('close', stop);
      server = secure;
    }
    followRequestTimeout(server, options.requestTimeoutMs);
    server.on('clientError', answerClientError);
    server.on('checkExpectation', refuseExpectation);
    server.on('connect', refuseConnect);
    return server as http.Server;
  };
}
