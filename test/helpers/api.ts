/**
 * Small helpers for the black-box API tests: error-envelope checks, raw POSTs (a Buffer body so that
 * fetch adds no Content-Type), gzip, polling, and lookups in stored events.
 */
import { strict as assert } from 'assert';
import fs from 'fs';
import zlib from 'zlib';
import { request, type TestServer } from './server';
import type { StoredEvent } from './storage';

export type Answer = Awaited<ReturnType<typeof request>>;

/** POST with a Buffer body: no Content-Type unless given (fetch sets text/plain for string bodies). */
export function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return request(url, { method: 'POST', body: typeof body === 'string' ? Buffer.from(body) : body, headers });
}

export function gzip(text: string | Buffer): Buffer {
  return zlib.gzipSync(typeof text === 'string' ? Buffer.from(text) : text);
}

/**
 * The error envelope (docs/api.md) `{ error: { code, message } }` with this status and code; on the
 * Elasticsearch-compatible paths the envelope also carries Elasticsearch's `status`, `error.type`
 * and `error.reason` (assertElasticError).
 */
export function assertError(answer: Answer, status: number, code: string, context = ''): void {
  const where = `${context} (got ${answer.status} ${answer.text.slice(0, 300)})`;
  assert.equal(answer.status, status, `status ${where}`);
  assert.ok(answer.body !== null && typeof answer.body === 'object', `JSON body ${where}`);
  if (Object.keys(answer.body).includes('status')) {
    assertElasticError(answer, status, code, context);
    return;
  }
  assert.deepEqual(Object.keys(answer.body), ['error'], `envelope keys ${where}`);
  assert.equal(answer.body.error.code, code, `error.code ${where}`);
  assert.equal(typeof answer.body.error.message, 'string', `error.message ${where}`);
  assert.ok(answer.body.error.message.length > 0, `non-empty error.message ${where}`);
}

/** Our envelope with Elasticsearch's members beside it: `{ error: { code, message, type, reason, root_cause }, status }`. */
export function assertElasticError(answer: Answer, status: number, code: string, context = ''): void {
  const where = `${context} (got ${answer.status} ${answer.text.slice(0, 300)})`;
  assert.equal(answer.status, status, `status ${where}`);
  assert.deepEqual(Object.keys(answer.body ?? {}).sort(), ['error', 'status'], `envelope keys ${where}`);
  assert.equal(answer.body.status, status, `top-level status ${where}`);
  const { error } = answer.body;
  assert.equal(error.code, code, `error.code ${where}`);
  for (const key of ['message', 'type', 'reason']) {
    assert.ok(typeof error[key] === 'string' && error[key].length > 0, `error.${key} ${where}`);
  }
  assert.equal(error.reason, error.message, `error.reason ${where}`);
  assert.deepEqual(error.root_cause, [{ type: error.type, reason: error.reason }], `error.root_cause ${where}`);
}

/** Polls until `check` is true (or throws after `timeoutMs`). */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The one stored event whose `_raw` is `raw` (fails when absent or duplicated). */
export function storedByRaw(events: StoredEvent[], raw: string): StoredEvent {
  const found = events.filter((event) => event._raw === raw);
  assert.equal(found.length, 1, `expected exactly one stored event with _raw ${JSON.stringify(raw)}, found ${found.length}`);
  return found[0]!;
}

/** The one stored event whose field `name` equals `value`. */
export function storedBy(events: StoredEvent[], name: string, value: unknown): StoredEvent {
  const found = events.filter((event) => event[name] === value);
  assert.equal(found.length, 1, `expected exactly one stored event with ${name}=${JSON.stringify(value)}, found ${found.length}`);
  return found[0]!;
}

/** Asserts the listed fields of an event (stored, or from a query), each with its exact value and type. */
export function assertFields(event: Record<string, unknown>, expected: Record<string, unknown>, context = ''): void {
  for (const [name, value] of Object.entries(expected)) {
    assert.strictEqual(event[name], value, `${context} field ${name} of ${JSON.stringify(event)}`);
  }
}

/** Milliseconds since the epoch of an ISO string, as event-time microseconds. */
export function isoMicros(iso: string): number {
  const ms = Date.parse(iso);
  assert.ok(Number.isFinite(ms), `bad ISO time ${iso}`);
  return ms * 1000;
}

/** Ends a test server (SIGTERM, or SIGKILL when `kill`) and removes its data dir. */
export async function dispose(server: TestServer | undefined, kill = false): Promise<void> {
  if (server === undefined) return;
  if (kill) await server.kill();
  else await server.stop();
  fs.rmSync(server.dataDir, { recursive: true, force: true });
}

/** PATCH /api/v1/config with a JSON body. */
export function patchConfig(server: TestServer, patch: unknown): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  return request(`${server.api}/config`, { method: 'PATCH', body: JSON.stringify(patch), headers: { 'content-type': 'application/json' } });
}

/** Every event `q` finds over all time (POST /query, synchronous), failing on any other answer. */
export async function queryEvents(server: TestServer, q: string): Promise<Record<string, any>[]> {
  const answer = await request(`${server.api}/query`, {
    method: 'POST',
    body: JSON.stringify({ q, from: '1970-01-01T00:00:00Z', to: '2200-01-01T00:00:00Z', limit: 10_000 }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(answer.status, 200, `query ${q}: ${answer.text.slice(0, 300)}`);
  assert.equal(answer.body.data.type, 'events', `query ${q}: ${answer.text.slice(0, 300)}`);
  return answer.body.data.events;
}

/** Polls `q` until it finds `count` events (the shipper delivers in the background), then returns them. */
export async function awaitEvents(server: TestServer, q: string, count: number, timeoutMs = 20_000): Promise<Record<string, any>[]> {
  let events: Record<string, any>[] = [];
  await waitUntil(
    async () => (events = await queryEvents(server, q)).length >= count,
    timeoutMs,
    `${count} events for ${q} (have ${events.length})`,
  );
  assert.equal(events.length, count, `exactly ${count} events for ${q}`);
  return events;
}
