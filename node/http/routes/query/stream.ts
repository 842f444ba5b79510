/** `POST /query/stream`: the answer as NDJSON, events written as the scan finds them, then a `__meta` or `__error` line. */
import type { FastifyInstance } from 'fastify';
import type { Job } from '../../../../coordinator/jobs';
import { eventFormatter } from '../../../../query/exec/result';
import type { Row, TimedRow } from '../../../../query/exec/rows';
import { parseQueryRequest, STREAM_BODY_SCHEMA, type QueryParams } from '../../query-request';
import { JSON_BODY, type QueryRoutesContext } from './context';
import { launchQuery } from './launch';

export function streamQueryRoute(server: FastifyInstance, { app, service }: QueryRoutesContext): void {
  server.post<{ Body: QueryParams }>(
    '/query/stream',
    { schema: { body: STREAM_BODY_SCHEMA }, config: JSON_BODY },
    async (request, reply) => {
      const parsed = parseQueryRequest(request.body, app.settings, Date.now());
      const raw = reply.raw;
      const started = performance.now();
      let written = 0;
      // A client that leaves while a write waits for 'drain' ends the wait too: the scan must not hang on it.
      const write = (line: unknown): Promise<void> =>
        new Promise((resolve) => {
          if (raw.destroyed || raw.writableEnded || raw.write(`${JSON.stringify(line)}\n`)) return resolve();
          const done = (): void => {
            raw.off('drain', done);
            raw.off('close', done);
            resolve();
          };
          raw.once('drain', done);
          raw.once('close', done);
        });
      let format: (row: Row) => Row = (row) => row;
      // Once the job has ended, the last line (the meta or the one error) is the stream's last: a
      // row that arrives later is not written.
      let ended = false;
      // Events go out as the scan finds them, newest first (query/exec/stream-order.ts).
      const onRows = async (rows: TimedRow[]): Promise<void> => {
        for (const { row } of rows) {
          if (ended || raw.destroyed) return;
          await write(format(row));
          written++;
        }
      };
      const launched = launchQuery(service, parsed, { unlimited: true, onRows });
      const job: Job = launched.job;
      format = eventFormatter(launched.plan);
      reply.hijack();
      raw.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const onClose = (): void => {
        if (job.status === 'running') service.jobs.cancel(job.id, 'the client disconnected');
      };
      raw.on('close', onClose);
      await job.finished;
      ended = true;
      try {
        if (job.status !== 'done' || job.answer === null) {
          await write({ __error: job.error ?? { code: 'INTERNAL_ERROR', message: 'the query failed' } });
        } else {
          const data = job.answer.data;
          // Results that needed all input (aggregates, sort, ...) arrive whole at the end.
          if (data.type === 'events') {
            for (const event of data.events) {
              await write(event);
              written++;
            }
          } else {
            for (const row of data.rows) {
              await write(Object.fromEntries(data.columns.map((column, i) => [column, row[i]])));
              written++;
            }
          }
          const { scanned, partial, missing_keys, missing } = job.answer.meta;
          const meta: Record<string, unknown> = { total: written, scanned, took_ms: Math.round(performance.now() - started) };
          if (partial === true) Object.assign(meta, { partial, missing_keys, missing });
          await write({ __meta: meta });
        }
      } finally {
        raw.off('close', onClose);
        raw.end();
      }
    },
  );
}
