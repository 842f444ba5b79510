/** `GET /es/_cat/health`: the cluster health as a `_cat` row, text (`?v` adds the header) or `format=json`. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../core/errors';
import { ES_CLUSTER_NAME } from './es-cluster';

type Query = Record<string, string | undefined>;

/** `GET /_cat/health` columns and values (cat APIs give every value as text). */
function catHealthRow(nowMs: number): [string, string][] {
  const time = new Date(nowMs).toISOString().slice(11, 19);
  return [
    ['epoch', String(Math.floor(nowMs / 1000))],
    ['timestamp', time],
    ['cluster', ES_CLUSTER_NAME],
    ['status', 'green'],
    ['node.total', '1'],
    ['node.data', '1'],
    ['shards', '0'],
    ['pri', '0'],
    ['relo', '0'],
    ['init', '0'],
    ['unassign', '0'],
    ['unassign.pri', '0'],
    ['pending_tasks', '0'],
    ['max_task_wait_time', '-'],
    ['active_shards_percent', '100.0%'],
  ];
}

/** Text as `_cat` writes it: space-separated columns padded to their widths, `?v` adds the header. */
function catText(row: [string, string][], header: boolean): string {
  const widths = row.map(([name, value]) => (header ? Math.max(name.length, value.length) : value.length));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join(' ')
      .trimEnd() + '\n';
  return (header ? line(row.map(([name]) => name)) : '') + line(row.map(([, value]) => value));
}

function catHealth(request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply): unknown {
  const { format, v } = request.query;
  const row = catHealthRow(Date.now());
  if (format === 'json') return [Object.fromEntries(row)];
  if (format !== undefined && format !== 'txt' && format !== 'text') {
    throw new ApiError('INVALID_REQUEST', `unsupported format [${format}]: use json or txt`);
  }
  reply.type('text/plain; charset=UTF-8');
  return catText(row, v !== undefined && v !== 'false');
}

export function catHealthRoute(server: FastifyInstance): void {
  server.get('/es/_cat/health', catHealth);
}
