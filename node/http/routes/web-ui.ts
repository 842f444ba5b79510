/**
 * The web UI (docs/ui.md): `GET /` answers the page, `GET /assets/...` its bundled scripts and
 * styles (brotli or gzip when the browser accepts it), built into `dist/ui/` by `npm install`
 * (ui/build.mjs). Every URL in the page is relative, so it works behind a reverse proxy that
 * serves the node under a path prefix. The page and its assets are open: the page asks for a token
 * itself when an API call answers 401.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import fs from 'fs';
import path from 'path';
import { ApiError } from '../../core/errors';

/** `dist/ui`, beside `dist/node`, where the UI build writes. */
export const UI_FOLDER = path.join(__dirname, '..', '..', '..', 'ui');

export function webUiRoutes(folder = UI_FOLDER): FastifyPluginAsync {
  return async (server) => {
    const indexFile = path.join(folder, 'index.html');
    server.get('/', async (_request, reply) => {
      let page: Buffer;
      try {
        page = await fs.promises.readFile(indexFile);
      } catch {
        throw new ApiError('NOT_FOUND', `the web UI is not built (no ${indexFile}): run npm install or npm run build:ui`);
      }
      // The page names its hashed assets: it is asked again each time, they are kept for good.
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
    });
    await server.register(async (assets) => {
      // One URL answers in several encodings: a shared cache must keep them apart (after the
      // `Vary: Origin` of CORS).
      assets.addHook('onSend', async (_request, reply, payload) => {
        const vary = reply.getHeader('vary');
        reply.header('vary', vary === undefined ? 'Accept-Encoding' : `${String(vary)}, Accept-Encoding`);
        return payload;
      });
      await assets.register(fastifyStatic, {
        root: path.join(folder, 'assets'),
        prefix: '/assets/',
        // Asset names carry a hash of their content (esbuild's [hash]): a new build has new names.
        immutable: true,
        maxAge: '365d',
        index: false,
        // The build writes a brotli and a gzip copy beside each script and style: a browser that
        // accepts one gets it (the bundle is under a third of its size in brotli), others the plain file.
        preCompressed: true,
      });
    });
  };
}
