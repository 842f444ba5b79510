/**
 * The HTTP side of a graceful shutdown. The caller has set `app.shuttingDown`, so every new request,
 * on a new or a kept-alive connection, is answered 503 SHUTTING_DOWN with `connection: close` while
 * the listener stays open. Idle keep-alive connections are closed, long-lived answers ended, admitted
 * requests finish; then the listener closes. What still holds a connection at the deadline is cut.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../core/logger';

export async function closeHttp(server: FastifyInstance, deadlineMs: number, logger: Logger): Promise<void> {
  server.server.closeIdleConnections();
  if (!(await server.drain.drain(deadlineMs))) {
    logger.warn(`${server.drain.active} requests were still in flight at http.shutdown_timeout: their connections are cut`);
  }
  const closed = server.close();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadlineMs - Date.now()))));
  await Promise.race([closed, late]);
  clearTimeout(timer);
  server.server.closeAllConnections();
  await closed;
}
