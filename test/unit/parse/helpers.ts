import { existsSync, readFileSync } from 'fs';
import { dirname, join } from 'path';

/** The repository root: the compiled tests may run from another directory (dist/, /tmp/...). */
function repoRoot(): string {
  for (const start of [__dirname, process.cwd(), '/work/main']) {
    for (let dir = start; ; dir = dirname(dir)) {
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'test', 'fixtures', 'loghub'))) return dir;
      if (dirname(dir) === dir) break;
    }
  }
  throw new Error('test/fixtures/loghub not found');
}

/** The non-empty lines of a loghub fixture (they end in CRLF). */
export function fixtureLines(name: string): string[] {
  return readFileSync(join(repoRoot(), 'test', 'fixtures', 'loghub', name), 'utf8')
    .split(/\r?\n/)
    .filter((l) => l !== '');
}
