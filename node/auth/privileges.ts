/**
 * The privilege every endpoint needs when auth is on (docs/api.md "Authentication"), by method and
 * path. Paths are under `/api/v1` unless they start with `^` (the root); `*` at the end stands for
 * one or more further segments. Every route the server registers must match a rule (the server
 * refuses to start otherwise), so a new endpoint cannot be left open by accident.
 */
import type { Privilege } from './scopes';

/** `open`: no token asked; `any-key`: any valid key (a path no route serves answers 404 only to a caller with one). */
export type Requirement = 'open' | 'any-key' | Privilege;

interface Rule {
  methods: readonly string[];
  path: string;
  need: Requirement;
}

const READ = ['GET'];
const WRITE = ['POST', 'PUT', 'PATCH', 'DELETE'];
const ANY = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** First match wins. */
const RULES: readonly Rule[] = [
  { methods: READ, path: '^/health', need: 'open' },
  { methods: READ, path: '^/metrics', need: 'open' },
  // The web UI's page and assets: the page asks for a token when an API call answers 401.
  { methods: READ, path: '^/', need: 'open' },
  { methods: READ, path: '^/assets/*', need: 'open' },
  // Key management and the node's own config: the root key alone.
  { methods: ANY, path: '/auth/*', need: 'root' },
  { methods: ['PATCH'], path: '/config', need: 'root' },
  { methods: READ, path: '/config', need: 'admin' },
  // The audit log: an administrator reads what was done and refused (never a secret).
  { methods: READ, path: '/audit', need: 'admin' },
  // Removing or forgetting a member changes the cluster itself.
  { methods: ['POST'], path: '/cluster/nodes/*', need: 'root' },
  // Ingest, in every format; the Elasticsearch-compatible paths whole, since shippers call their
  // handshake, health, template and index endpoints with the same credentials before they send.
  { methods: ['POST'], path: '/ingest', need: 'ingest' },
  { methods: ['POST'], path: '/ingest/*', need: 'ingest' },
  { methods: ANY, path: '/es', need: 'ingest' },
  { methods: ANY, path: '/es/*', need: 'ingest' },
  { methods: ['POST'], path: '/otlp/*', need: 'ingest' },
  // Queries and what reads events.
  { methods: ['DELETE'], path: '/query/jobs/*', need: 'admin' },
  { methods: ['GET', 'POST'], path: '/query', need: 'query' },
  { methods: ['GET', 'POST'], path: '/query/*', need: 'query' },
  { methods: READ, path: '/histogram', need: 'query' },
  { methods: READ, path: '/fields', need: 'query' },
  { methods: READ, path: '/fields/*', need: 'query' },
  { methods: READ, path: '/sources', need: 'query' },
  { methods: READ, path: '/tail', need: 'query' },
  // Saved queries, dashboards, alerts: reading them and an alert's dry run is `query`, changing them `admin`.
  { methods: ['POST'], path: '/alerts/*/test', need: 'query' },
  { methods: ['POST'], path: '/alerts/*/test-channels', need: 'admin' },
  ...['/queries', '/dashboards', '/alerts'].flatMap((path) => [
    { methods: READ, path, need: 'query' as const },
    { methods: READ, path: `${path}/*`, need: 'query' as const },
    { methods: WRITE, path, need: 'admin' as const },
    { methods: WRITE, path: `${path}/*`, need: 'admin' as const },
  ]),
  // Operational reads and the query cache.
  { methods: ['DELETE'], path: '/cache', need: 'admin' },
  { methods: READ, path: '/cache/stats', need: 'query' },
  { methods: READ, path: '/status', need: 'query' },
  { methods: READ, path: '/stats', need: 'query' },
  { methods: READ, path: '/metrics', need: 'query' },
  { methods: READ, path: '/compaction/history', need: 'query' },
  { methods: READ, path: '/cluster/status', need: 'query' },
];

const API_PREFIX = '/api/v1';

function matches(pattern: string, path: string): boolean {
  const wanted = pattern.split('/');
  const given = path.split('/');
  const rest = wanted[wanted.length - 1] === '*';
  if (rest ? given.length < wanted.length : given.length !== wanted.length) return false;
  return wanted.every((segment, i) => (rest && i === wanted.length - 1) || segment === '*' || segment === given[i]);
}

/** The rule's path as the router sees it: `^/health` is `/health`, `/queries` is `/api/v1/queries`. */
function routePath(rulePath: string): string {
  return rulePath.startsWith('^') ? rulePath.slice(1) : API_PREFIX + rulePath;
}

/**
 * What a request to a route needs: `url` is the route's pattern (`/api/v1/queries/:id`) or the
 * request's path when no route serves it. A route no rule covers: null.
 */
export function requirementOf(method: string, url: string): Requirement | null {
  // A browser's CORS preflight carries no credentials; the answer it gets grants nothing.
  if (method === 'OPTIONS') return 'open';
  const asked = method === 'HEAD' ? 'GET' : method;
  const rule = RULES.find((each) => each.methods.includes(asked) && matches(routePath(each.path), url));
  return rule?.need ?? null;
}
