// Builds the web UI into dist/ui/ (run by `npm install` through `prepare`, and by `npm run build:ui`):
// type-checks ui/src, bundles it with esbuild into content-hashed assets, and writes index.html
// naming them by relative URLs (./assets/...), so the page works under any path prefix.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
