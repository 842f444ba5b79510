/**
 * The fastify server: envelope and error conventions for every route, then one plugin per area.
 * Routes live under `/api/v1` except the root `/health` and `/metrics`.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import type { App } from '../app/app';
import { ApiError } from '../core/errors';
import { recordRefusal } from './audit-request';
import { installAuthHook, RouteRequirements } from './auth-hook';
import { installBodyParser } from './body';
import { RequestDrain } from './drain';
import { installElasticErrorShape } from './es-errors';
import { errorReply, MAX_PATH_PARAM_LENGTH, pathOf } from './errors';
import { IngestFlow } from './ingest-flow';
import { answerClientError, nodeServerFactory } from './node-server';
import { IngestRateLimiter } from './rate-limit';
import { RouteMethods } from './route-methods';
import { esRoutes } from './routes/es/index';
import { ingestRoutes } from './routes/ingest/index';
import { clusterAdminRoutes } from './routes/cluster-admin/index';
import { opsRoutes, rootRoutes } from './routes/ops/index';
import { otlpRoutes } from './routes/otlp';
import { queryRoutes } from './routes/query/index';
import { alertRoutes } from './routes/alerts/index';
import { auditRoutes } from './routes/audit/index';
import { authRoutes } from './routes/auth/index';
import { dashboardRoutes } from './routes/dashboards/index';
import { discoveryRoutes } from './routes/discovery';
import { histogramRoutes } from './routes/histogram';
import { tailRoutes } from './routes/tail';
import { savedQueryRoutes } from './routes/queries/index';
import { webUiRoutes } from './routes/web-ui';
import { schemaError } from './schema-errors';

/** Paths the official Elasticsearch clients talk to: they need this header on every answer. */
const ELASTIC_PATHS = /^\/api\/v1\/(es(\/|$)|ingest\/bulk)/;

export async function buildServer(app: App): Promise<FastifyInstance> {
  const server = Fastify({
    logger: false,
    serverFactory: nodeServerFactory({ requestTimeoutMs: () => app.settings.http.requestTimeoutMs, tls: app.tls }),
    clientErrorHandler: answerClientError,
    // What the router meets before any route (a malformed percent-encoding) is answered like any error.
    frameworkErrors: (error, request, reply) => answerError(request, reply, error),
    // The onRequest hook answers 503 SHUTTING_DOWN itself, in the envelope.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Route schemas refuse unknown fields (instead of dropping them), and each failure names its field.
    ajv: { customOptions: { removeAdditional: false, verbose: true } },
    schemaErrorFormatter: schemaError,
  });
  const drain = new RequestDrain();
  server.decorate('drain', drain);
  const routeMethods = new RouteMethods();
  const requirements = new RouteRequirements();
  server.addHook('onRoute', (route) => {
    routeMethods.add(route.url, route.method);
    requirements.add(route.method, route.url);
  });

  /** Every error answer: the path's shape, with 5xx (but 503) logged. */
  function answerError(request: FastifyRequest, reply: FastifyReply, thrown: unknown): FastifyReply {
    const { status, body, retryAfterSeconds } = errorReply(thrown, pathOf(request.url));
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    if (status >= 500 && status !== 503) {
      const detail = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
      app.logger.error(`${request.method} ${request.url}: ${detail}`);
    }
    return reply.status(status).send(body);
  }

  // Before any route is added (the CORS plugin's OPTIONS route too): a route keeps the error
  // handler in force when it was added.
  server.setErrorHandler((thrown, request, reply) => answerError(request, reply, thrown));

  installBodyParser(server, () => app.settings.ingest.maxBodySizeBytes);

  // First of the onRequest hooks: during a shutdown nothing else runs for a new request.
  server.addHook('onRequest', async (request, reply) => {
    const path = pathOf(request.url) ?? '/';
    if (ELASTIC_PATHS.test(path)) reply.header('x-elastic-product', 'Elasticsearch');
    if (app.shuttingDown && path !== '/health' && path !== '/metrics') {
      // The connection closes after this answer: a keep-alive client reconnects rather than queueing more requests here.
      reply.header('connection', 'close');
      throw new ApiError('SHUTTING_DOWN', 'the server is shutting down');
    }
    // Node would refuse this with an empty 400 (its check is turned off in node-server.ts).
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError('INVALID_REQUEST', 'an HTTP/1.1 request needs a Host header');
    }
    drain.admit(reply.raw);
  });
  // After the shutdown check, before any body is read.
  if (app.authenticator !== null)
    installAuthHook(server, app.authenticator, requirements, (request, refusal) => recordRefusal(app, request, refusal));

  // `http.cors_origins`: browsers may call the API from these origins (`*` for any); read live.
  await server.register(cors, {
    origin: (origin, callback) => {
      const allowed = app.settings.http.corsOrigins;
      callback(null, origin !== undefined && (allowed.includes('*') || allowed.includes(origin)));
    },
  });

  installElasticErrorShape(server, ELASTIC_PATHS);

  server.addHook('onResponse', async (request, reply) => {
    app.metrics.httpRequests.inc({
      method: request.method,
      route: request.routeOptions.url ?? 'unknown',
      status: String(reply.statusCode),
    });
  });

  // No route: 405 with Allow when the path is served under other methods, else 404.
  server.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url) ?? '/';
    const allowed = routeMethods.allowed(path);
    if (allowed.length === 0) return answerError(request, reply, new ApiError('NOT_FOUND', `no such endpoint: ${request.method} ${path}`));
    reply.header('allow', allowed.join(', '));
    const message = `${request.method} is not allowed on ${path}; it answers ${allowed.join(', ')}`;
    return answerError(request, reply, new ApiError('METHOD_NOT_ALLOWED', message));
  });

  await server.register(rootRoutes(app));
  // The web UI at `/` and `/assets/...`: no API path starts with either.
  await server.register(webUiRoutes());
  const flow = new IngestFlow(app, new IngestRateLimiter(() => app.settings.ingest.rateLimit));
  await server.register(
    async (api) => {
      await api.register(opsRoutes(app));
      await api.register(clusterAdminRoutes(app));
      await api.register(ingestRoutes(app, flow));
      await api.register(esRoutes(app, flow));
      await api.register(otlpRoutes(flow));
      await api.register(queryRoutes(app, app.queries));
      await api.register(savedQueryRoutes(app));
      await api.register(dashboardRoutes(app));
      await api.register(alertRoutes(app));
      await api.register(histogramRoutes(app));
      await api.register(discoveryRoutes(app));
      await api.register(tailRoutes(app));
      await api.register(auditRoutes(app));
      // Key management exists only with auth on: otherwise its paths answer 404.
      if (app.authenticator !== null) await api.register(authRoutes(app, app.authenticator));
    },
    { prefix: '/api/v1' },
  );
  return server;
}
