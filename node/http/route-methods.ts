/**
 * The methods each registered path answers, for 405 Method Not Allowed: fastify's router only says
 * that no route matched, also for a path it serves under other methods.
 */

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A route URL as fastify writes it (`/api/v1/query/jobs/:id`) as a pattern over request paths: a
 * `:name` segment matches one non-empty segment, and a trailing slash is optional (the router
 * ignores it).
 */
export function routePattern(url: string): RegExp {
  const trimmed = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  const segments = trimmed.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment)));
  return new RegExp(`^${segments.join('/')}/?$`);
}

export class RouteMethods {
  private readonly routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  add(url: string, method: string | string[]): void {
    // A catch-all (the CORS preflight's `OPTIONS *`) says nothing about which paths exist.
    if (url.includes('*')) return;
    let route = this.routes.get(url);
    if (route === undefined) {
      route = { pattern: routePattern(url), methods: new Set() };
      this.routes.set(url, route);
    }
    for (const name of Array.isArray(method) ? method : [method]) route.methods.add(name.toUpperCase());
  }

  /** The methods some route answers on this path, sorted; empty when no route has the path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: answered } of this.routes.values()) {
      if (pattern.test(path)) for (const method of answered) methods.add(method);
    }
    return [...methods].sort();
  }
}
