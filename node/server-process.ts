/**
 * The server process lifecycle: load the config, open storage (replaying the write buffer),
 * listen, reload on SIGHUP, and shut down cleanly on SIGTERM/SIGINT: answer 503 SHUTTING_DOWN to
 * new requests, let in-flight ones finish (http/shutdown.ts), flush, close RocksDB, exit 0.
 */
import type { FastifyInstance } from 'fastify';
import { App } from './app/app';
import { reloadOnSignal } from './app/signal-reload';
import { loadConfig, type CommandLineOverrides } from './config/load';
import { resolveSettings } from './config/settings';
import { buildServer } from './http/server';
import { closeHttp } from './http/shutdown';
import { createLogger } from './core/logger';
import { applyHeapGrowth } from './core/heap-growth';

export async function runServer(overrides: CommandLineOverrides): Promise<void> {
  // Before App.start: the worker threads it starts take the factor too.
  applyHeapGrowth();
  const config = loadConfig(overrides);
  // The level is read per line from the live config, so SIGHUP and PATCH /config both apply it.
  let running: App | null = null;
  const logger = createLogger(() => (running?.config.log_level ?? config.log_level) as string);
  const app = await App.start(config, logger);
  running = app;
  const bootstrap = await app.bootstrapAuth(process.env.TRAWL_ROOT_TOKEN || null);
  // The one time a generated root token is shown: only its hash is stored.
  if (bootstrap.made === 'generated') console.log(`root token: ${bootstrap.token}`);
  if (bootstrap.made === 'given') logger.info('auth: root key made for the given root token (TRAWL_ROOT_TOKEN or auth.root_token)');
  const server = await buildServer(app);
  const { host, port } = resolveSettings(config).listen;
  await server.listen({ host, port });
  const address = server.server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;

  // A bug in one request must not take the node down: log it (acknowledged data is safe either way).
  process.on('unhandledRejection', (reason) => {
    logger.error(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });

  // The audit log records each reload (app/signal-reload.ts); a failure to record is logged there.
  process.on('SIGHUP', () => void reloadOnSignal(app, overrides, logger));

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received: shutting down`);
    shutdown(app, server)
      .then(() => process.exit(0))
      .catch((error: Error) => {
        logger.error(`shutdown failed: ${error.message}`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  if (app.tls !== null) {
    const mutual = app.tls.mutual ? ', nodes verify each other by tls.ca_file' : '';
    logger.info(`tls: HTTPS${app.cluster === null ? '' : ' and gRPC'} with a certificate valid until ${app.tls.validTo}${mutual}`);
  }

  // Last, once the handlers are in place: a supervisor (or test) that signals on this line must
  // never meet the default SIGTERM action, which would skip the graceful shutdown.
  console.log(`trawl listening on ${app.settings.tls.enabled ? 'https' : 'http'}://${host}:${boundPort}`);
}

async function shutdown(app: App, server: FastifyInstance): Promise<void> {
  app.shuttingDown = true;
  await closeHttp(server, Date.now() + app.settings.http.shutdownTimeoutMs, app.logger);
  await app.close();
  app.logger.info('storage flushed and closed');
}
