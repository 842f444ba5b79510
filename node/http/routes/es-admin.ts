/**
 * The Elasticsearch endpoints that shippers call before or after writing, answered as harmless,
 * correctly shaped no-ops (Elasticsearch 8 shapes): a shipper that polls cluster health, refreshes
 * after a bulk, or installs its index template, lifecycle policy or index then writes as usual.
 *
 * Trawl keeps no Elasticsearch-side objects: the cluster is one green node; `_refresh` has nothing to
 * do (acknowledged events are already searchable); template, policy and index creation are
 * acknowledged and their bodies ignored (events always land in index `main`, `_index` naming the
 * source), so a lookup of one answers 404, as for something never created.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app/app';
import { ApiError, invalidJson } from '../../core/errors';
import { isPlainObject, tryParseJson } from '../../ingest/common';
import { rawBody } from '../body';

export const ES_CLUSTER_NAME = 'trawl';
export const ES_CLUSTER_UUID = 'trawl';

type Named = FastifyRequest<{ Params: { name: string } }>;
type Indexed = FastifyRequest<{ Params: { index: string } }>;
type Query = Record<string, string | undefined>;

/** A body, when given, must be one JSON object, as Elasticsearch requires of these requests. */
function checkObjectBody(request: FastifyRequest): void {
  const text = rawBody(request).bytes.toString('utf8').trim();
  if (text === '') return;
  const parsed = tryParseJson(text);
  if (!parsed.ok) throw invalidJson(`failed to parse the request body: ${parsed.message}`);
  if (!isPlainObject(parsed.value)) throw invalidJson('the request body must be a JSON object');
}

function notFound(type: string, reason: string): ApiError {
  return new ApiError('NOT_FOUND', reason, { type });
}

/**
 * Why `name` is not a valid Elasticsearch index name, or null. Date-math names (`<logs-{now/d}>`),
 * which Logstash uses for its first rollover index, are accepted whole.
 */
export function invalidIndexName(name: string): string | null {
  if (name.startsWith('<') && name.endsWith('>') && name.length > 2) return null;
  if (name === '' || name === '.' || name === '..') return 'must not be empty, "." or ".."';
  if (name !== name.toLowerCase()) return 'must be lowercase';
  if (/^[-_+]/.test(name)) return "must not start with '_', '-', or '+'";
  if (/[\\/*?"<>| ,#:]/.test(name)) return 'must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?, #, :]';
  if (Buffer.byteLength(name) > 255) return 'index name is too long, (255 bytes at most)';
  return null;
}

function checkIndexName(name: string): void {
  const why = invalidIndexName(name);
  if (why !== null) throw new ApiError('INVALID_REQUEST', `Invalid index name [${name}], ${why}`, { type: 'invalid_index_name_exception', index: name });
}

/** `GET /_cluster/health`: always green; the wait_for_* conditions hold at once. */
function clusterHealth(): Record<string, unknown> {
  return {
    cluster_name: ES_CLUSTER_NAME,
    status: 'green',
    timed_out: false,
    number_of_nodes: 1,
    number_of_data_nodes: 1,
    active_primary_shards: 0,
    active_shards: 0,
    relocating_shards: 0,
    initializing_shards: 0,
    unassigned_shards: 0,
    unassigned_primary_shards: 0,
    delayed_unassigned_shards: 0,
    number_of_pending_tasks: 0,
    number_of_in_flight_fetch: 0,
    task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: 100.0,
  };
}

/** `GET /_cat/health` columns and values (cat APIs give every value as text). */
function catHealthRow(nowMs: number): [string, string][] {
  const time = new Date(nowMs).toISOString().slice(11, 19);
  return [
    ['epoch', String(Math.floor(nowMs / 1000))], ['timestamp', time], ['cluster', ES_CLUSTER_NAME], ['status', 'green'],
    ['node.total', '1'], ['node.data', '1'], ['shards', '0'], ['pri', '0'], ['relo', '0'], ['init', '0'],
    ['unassign', '0'], ['unassign.pri', '0'], ['pending_tasks', '0'], ['max_task_wait_time', '-'], ['active_shards_percent', '100.0%'],
  ];
}

/** Text as `_cat` writes it: space-separated columns padded to their widths, `?v` adds the header. */
function catText(row: [string, string][], header: boolean): string {
  const widths = row.map(([name, value]) => (header ? Math.max(name.length, value.length) : value.length));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join(' ').trimEnd() + '\n';
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

/** A basic licence, active: Beats and Logstash refuse to start against a cluster without one. */
function license(): Record<string, unknown> {
  return {
    license: {
      status: 'active',
      uid: '00000000-0000-0000-0000-000000000000',
      type: 'basic',
      issue_date: '1970-01-01T00:00:00.000Z',
      issue_date_in_millis: 0,
      max_nodes: 1000,
      max_resource_units: null,
      issued_to: ES_CLUSTER_NAME,
      issuer: 'elasticsearch',
      start_date_in_millis: -1,
    },
  };
}

function xpackInfo(app: App): Record<string, unknown> {
  return {
    build: { hash: app.version, date: '1970-01-01T00:00:00.000Z' },
    license: { uid: '00000000-0000-0000-0000-000000000000', type: 'basic', mode: 'basic', status: 'active' },
    features: {
      ilm: { available: true, enabled: true },
      security: { available: true, enabled: false },
      monitoring: { available: true, enabled: false },
    },
    tagline: 'You know, for X',
  };
}

const acknowledged = (request: FastifyRequest): Record<string, unknown> => {
  checkObjectBody(request);
  return { acknowledged: true };
};

const refreshed = { _shards: { total: 1, successful: 1, failed: 0 } };

export function esAdminRoutes(app: App): FastifyPluginAsync {
  return async (server) => {
    server.get('/es/_cluster/health', clusterHealth);
    server.get('/es/_cluster/health/:index', clusterHealth);
    server.get('/es/_cat/health', catHealth);
    for (const path of ['/es/_refresh', '/es/:index/_refresh']) {
      server.post(path, async () => refreshed);
      server.get(path, async () => refreshed);
    }

    // Index templates (composable and legacy), component templates and lifecycle policies.
    const kinds: [string, string, (name: string) => string][] = [
      ['_index_template', 'resource_not_found_exception', (name) => `index template matching [${name}] not found`],
      ['_template', 'resource_not_found_exception', (name) => `index template matching [${name}] not found`],
      ['_component_template', 'resource_not_found_exception', (name) => `component template matching [${name}] not found`],
      ['_ilm/policy', 'resource_not_found_exception', (name) => `Lifecycle policy not found: ${name}`],
    ];
    for (const [path, type, reason] of kinds) {
      server.put(`/es/${path}/:name`, async (request: Named) => acknowledged(request));
      server.post(`/es/${path}/:name`, async (request: Named) => acknowledged(request));
      server.get(`/es/${path}/:name`, async (request: Named) => {
        throw notFound(type, reason(request.params.name));
      });
    }

    server.get('/es/_license', async () => license());
    server.get('/es/_xpack', async () => xpackInfo(app));

    server.put('/es/:index', async (request: Indexed) => {
      checkIndexName(request.params.index);
      checkObjectBody(request);
      return { acknowledged: true, shards_acknowledged: true, index: request.params.index };
    });
    server.get('/es/:index', async (request: Indexed) => {
      checkIndexName(request.params.index);
      throw new ApiError('NOT_FOUND', `no such index [${request.params.index}]`, { type: 'index_not_found_exception', index: request.params.index });
    });
  };
}
