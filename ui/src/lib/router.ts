/**
 * Hash routes (`#/search?q=...&from=-1h`): the server serves one page whatever the route, so no
 * rewrite is needed behind a proxy, and the address holds the whole view, to share it.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments after `#/`: `['dashboards', 'dsh_x']`. */
  path: string[];
  params: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const [pathPart = '', search = ''] = hash.split('?', 2);
  const path = pathPart
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeURIComponent);
  return { path, params: new URLSearchParams(search) };
}

export function routeHref(path: string[], params: Record<string, string> = {}): string {
  const search = new URLSearchParams(params).toString();
  return `#/${path.map(encodeURIComponent).join('/')}${search === '' ? '' : `?${search}`}`;
}

/** Goes to a route: `replace` changes the address without a new history entry. */
export function navigate(path: string[], params: Record<string, string> = {}, replace = false): void {
  const href = routeHref(path, params);
  if (href === location.hash) return;
  if (replace) {
    history.replaceState(null, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = () => setRoute(currentRoute());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
