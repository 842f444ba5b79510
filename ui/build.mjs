// Builds the web UI into dist/ui/ (run by `npm install` through `prepare`, and by `npm run build:ui`):
// type-checks ui/src, bundles it with esbuild into content-hashed assets, writes a brotli (.br) and
// a gzip (.gz) copy beside each script and style, and writes index.html naming the assets by
// relative URLs (./assets/...), so the page works under any path prefix.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';

const uiDir = path.dirname(fileURLToPath(import.meta.url));
const repoDir = path.dirname(uiDir);
const outDir = path.join(repoDir, 'dist', 'ui');
const assetsDir = path.join(outDir, 'assets');

const tsc = path.join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(uiDir, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('ui/build.mjs: the UI does not type-check (above)');
  process.exit(1);
}

fs.rmSync(outDir, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: [path.join(uiDir, 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: assetsDir,
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});

/** The output file of the entry point with this extension, as a URL relative to the page. */
function entryAsset(extension) {
  const found = Object.keys(result.metafile.outputs).find((file) => file.endsWith(extension) && !file.endsWith('.map'));
  if (found === undefined) throw new Error(`the UI build wrote no ${extension} file`);
  return `./assets/${path.basename(found)}`;
}

const template = fs.readFileSync(path.join(uiDir, 'index.html'), 'utf8');
const page = template.replace('%SCRIPT%', entryAsset('.js')).replace('%STYLE%', entryAsset('.css'));
fs.writeFileSync(path.join(outDir, 'index.html'), page);

// The server sends a .br or .gz copy to a browser that accepts it (@fastify/static's preCompressed).
// Source maps are left as they are: only developer tools ask for them, and brotli's best quality
// would spend seconds of every build on them.
const COMPRESSED_KINDS = /\.(js|css|html|svg|json|txt)$/;
// Below 1 KB a compressed copy would save a few hundred bytes at most.
const MIN_COMPRESSED_BYTES = 1024;
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

async function writeCompressedCopies(folder) {
  const names = fs.readdirSync(folder).filter((name) => COMPRESSED_KINDS.test(name));
  await Promise.all(
    names.map(async (name) => {
      const file = path.join(folder, name);
      const plain = await fs.promises.readFile(file);
      if (plain.length < MIN_COMPRESSED_BYTES) return;
      const [brotlied, gzipped] = await Promise.all([
        brotli(plain, {
          params: {
            [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
            [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
          },
        }),
        gzip(plain, { level: zlib.constants.Z_BEST_COMPRESSION }),
      ]);
      await Promise.all([fs.promises.writeFile(`${file}.br`, brotlied), fs.promises.writeFile(`${file}.gz`, gzipped)]);
    }),
  );
}

await writeCompressedCopies(assetsDir);
