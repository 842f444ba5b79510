/** Shared helpers of the ingest unit tests. */
import { strict as assert } from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { LogEvent } from '../../../storage/core/event';
import { isValidIndexName } from '../../../storage/core/event';
import type { IngestContext } from '../../../node/ingest/common';
import { MAX_EVENT_MICROS, MIN_EVENT_MICROS } from '../../../node/ingest/datetime';

/** Epoch micros of a UTC civil time (month 1-based), for expected values. */
export function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, micros = 0): number {
  return Date.UTC(y, mo - 1, d, h, mi, s) * 1000 + micros;
}

/** A fixed receive time: 2024-06-15T12:00:00Z. */
export const NOW = utc(2024, 6, 15, 12, 0, 0);

/** A parse context received at NOW that accepts every valid event time (the window's own tests narrow it). */
export function ctx(overrides: Partial<IngestContext> = {}): IngestContext {
  return { receivedAtMicros: NOW, pipeline: true, oldestMicros: MIN_EVENT_MICROS, newestMicros: MAX_EVENT_MICROS, ...overrides };
}

/** The repository root: walk up from the compiled file (dist/...), else from the working directory. */
export function repoRoot(): string {
  const starts = [__dirname, process.cwd()];
  for (const start of starts) {
    let dir = start;
    for (;;) {
      if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'test', 'fixtures'))) return dir;
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  throw new Error('repository root not found: run the tests from inside the repository');
}

export function fixture(...parts: string[]): string {
  return fs.readFileSync(path.join(repoRoot(), 'test', 'fixtures', ...parts), 'utf8');
}

/** The invariants every parser output must hold. */
export function assertValidEvent(ev: LogEvent): void {
  assert.ok(Number.isSafeInteger(ev.time), `time not an integer: ${ev.time}`);
  assert.ok(ev.time >= 0 && ev.time < 7_258_118_400_000_000, `time out of range: ${ev.time}`);
  assert.equal(typeof ev.raw, 'string');
  assert.ok(isValidIndexName(ev.index), `bad index ${ev.index}`);
  assert.equal(Object.getPrototypeOf(ev.fields), Object.prototype);
  for (const [k, v] of Object.entries(ev.fields)) {
    assert.notEqual(k, '', 'empty field name');
    const t = typeof v;
    assert.ok(t === 'string' || t === 'boolean' || (t === 'number' && Number.isFinite(v)), `field ${k} has ${String(v)}`);
  }
  for (const label of ['source', 'sourcetype', 'host', 'level']) {
    if (label in ev.fields) assert.equal(typeof ev.fields[label], 'string', `${label} must be a string`);
  }
}
