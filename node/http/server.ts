/**
 * The fastify server: envelope and error conventions for every route, then one plugin per area.
 * Routes live under `/api/v1` except the root `/health` and `/metrics`.
 */
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import fs from 'fs';
import type { App } from '../app';
import { ApiError } from '../errors';
import { installBodyParser } from './body';
import { installElasticErrorShape } from './es-errors';
import { IngestFlow } from './ingest-flow';
import { IngestRateLimiter } from './rate-limit';
import { esRoutes } from './routes/es';
import { ingestRoutes } from './routes/ingest';
import { opsRoutes, rootRoutes } from './routes/ops';
import { otlpRoutes } from './routes/otlp';
import { queryRoutes } from './routes/query';

/** Paths the official Elasticsearch clients talk to: they need this header on every answer. */
const ELASTIC_PATHS = /^\/api\/v1\/(es(\/|$)|ingest\/bulk)/;

function errorBody(error: FastifyError | ApiError | Error): { status: number; body: { error: Record<string, unknown> } } {
  if (error instanceof ApiError) return { status: error.status, body: error.toBody() };
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body too large' } } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: error.message } } };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: { error: { code: 'INVALID_JSON', message: error.message } } };
    case 'FST_ERR_VALIDATION':
      return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: error.message } } };
  }
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { status, body: { error: { code: 'INVALID_REQUEST', message: error.message } } };
  }
  return { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'internal error; see the server log' } } };
}

/** `tls.enabled`: serve HTTPS with the configured PEM files (read once at start; a change needs a restart). */
function httpsOptions(app: App): { https: { cert: Buffer; key: Buffer } } | Record<string, never> {
  const { tls } = app.settings;
  if (!tls.enabled) return {};
  if (tls.certFile === null || tls.keyFile === null) {
    throw new Error('tls.enabled needs tls.cert_file and tls.key_file');
  }
  return { https: { cert: fs.readFileSync(tls.certFile), key: fs.readFileSync(tls.keyFile) } };
}

export async function buildServer(app: App): Promise<FastifyInstance> {
  const server = Fastify({
    ...httpsOptions(app),
    logger: false,
    // Request timeouts come from `http.request_timeout`; keep-alive for shippers that reuse connections.
    requestTimeout: app.settings.http.requestTimeoutMs,
    keepAliveTimeout: 65_000,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  });

  installBodyParser(server, () => app.settings.ingest.maxBodySizeBytes);

  // `http.cors_origins`: browsers may call the API from these origins (`*` for any); read live.
  await server.register(cors, {
    origin: (origin, callback) => {
      const allowed = app.settings.http.corsOrigins;
      callback(null, origin !== undefined && (allowed.includes('*') || allowed.includes(origin)));
    },
  });

  server.addHook('onRequest', async (request, reply) => {
    if (ELASTIC_PATHS.test(request.url.split('?')[0])) reply.header('x-elastic-product', 'Elasticsearch');
    const path = request.url.split('?')[0];
    if (app.shuttingDown && path !== '/health' && path !== '/metrics') {
      throw new ApiError('SHUTTING_DOWN', 'the server is shutting down');
    }
  });

  installElasticErrorShape(server, ELASTIC_PATHS);

  server.addHook('onResponse', async (request, reply) => {
    app.metrics.httpRequests.inc({
      method: request.method,
      route: request.routeOptions.url ?? 'unknown',
      status: String(reply.statusCode),
    });
  });

  server.setErrorHandler((thrown, request, reply) => {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const { status, body } = errorBody(error);
    if (status >= 500 && status !== 503) app.logger.error(`${request.method} ${request.url}: ${error.stack ?? error.message}`);
    return reply.status(status).send(body);
  });

  server.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ error: { code: 'NOT_FOUND', message: `no such endpoint: ${request.method} ${request.url.split('?')[0]}` } });
  });

  await server.register(rootRoutes(app));
  const flow = new IngestFlow(app, new IngestRateLimiter(() => app.settings.ingest.rateLimit));
  await server.register(
    async (api) => {
      await api.register(opsRoutes(app));
      await api.register(ingestRoutes(app, flow));
      await api.register(esRoutes(app, flow));
      await api.register(otlpRoutes(flow));
      await api.register(queryRoutes(app, app.queries));
    },
    { prefix: '/api/v1' },
  );
  return server;
}
