/**
 * A reverse proxy that serves a node under a path prefix (`/trawl/...` -> `/...`), as nginx's
 * `location /trawl/ { proxy_pass http://node/; }` does, streaming both ways (SSE too). Requests
 * outside the prefix answer 404 and are recorded, so a test can tell the page asked for none.
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface PrefixProxy {
  /** The page's address through the proxy, with the trailing slash: `http://127.0.0.1:PORT/trawl/`. */
  url: string;
  /** Paths asked for outside the prefix. */
  outside: string[];
  close(): Promise<void>;
}

/**
 * `rewrite` changes a path before it is sent on (after the prefix is taken off): pointing one
 * endpoint at a path the node does not serve stands for a node without that feature.
 */
export async function startPrefixProxy(
  target: string,
  prefix = '/trawl/',
  rewrite: (path: string) => string = (path) => path,
): Promise<PrefixProxy> {
  const upstream = new URL(target);
  const outside: string[] = [];
  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    if (!path.startsWith(prefix)) {
      outside.push(path);
      response.writeHead(404).end('outside the prefix');
      return;
    }
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: rewrite(path.slice(prefix.length - 1)),
        headers: { ...request.headers, host: upstream.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => response.destroy());
    response.on('close', () => forwarded.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    outside,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
