/**
 * What the fuzz tests share: the run count (FUZZ_RUNS sets every property's count, for a soak that
 * runs many more), the error codes docs/api.md lists, the check that an answer is a non-5xx or a
 * documented 503 and that an error answer is the envelope, and mutations of valid JSON documents.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import type { Answer } from './api';

/** `FUZZ_RUNS` when set (every property runs that many), else the property's own count, tuned for the normal suite. */
export function fuzzRuns(normal: number): number {
  const set = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(set) && set > 0 ? set : normal;
}

/** The codes of docs/api.md's error catalogue a client can meet (the 500 INTERNAL_ERROR is never one). */
export const CATALOGUE_CODES = new Set([
  'INVALID_JSON',
  'INVALID_REQUEST',
  'INVALID_QUERY',
  'QUERY_TOO_LARGE',
  'QUERY_MEMORY_EXCEEDED',
  'QUERY_TIMEOUT',
  'QUERY_CANCELED',
  'VALIDATION_ERROR',
  'AUTH_REQUIRED',
  'INVALID_TOKEN',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'EXPECTATION_FAILED',
  'RATE_LIMITED',
  'TOO_MANY_REQUESTS',
  'HEADERS_TOO_LARGE',
  'BACKPRESSURE',
  'SHARD_UNAVAILABLE',
  'SHUTTING_DOWN',
  'CLUSTER_FORMING',
  'QUERY_POOL_EXHAUSTED',
]);

/** The 503s docs/api.md documents: load, not a failure. */
const DOCUMENTED_503 = new Set(['BACKPRESSURE', 'SHUTTING_DOWN', 'QUERY_POOL_EXHAUSTED']);

/**
 * The answer is a success or a documented refusal: never a 5xx but the documented 503s, and every
 * 4xx or 503 is `{ error: { code, message } }` with a catalogue code. Returns the error code, or
 * null for a success.
 */
export function assertNoCrash(answer: Answer, context: string): string | null {
  const where = `${context}: ${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status < 400) return null;
  const code: unknown = answer.body?.error?.code;
  assert.ok(answer.status < 500 || (answer.status === 503 && DOCUMENTED_503.has(code as string)), `a 5xx: ${where}`);
  assert.ok(typeof code === 'string' && CATALOGUE_CODES.has(code), `an error envelope with a catalogue code: ${where}`);
  assert.equal(typeof answer.body.error.message, 'string', `error.message: ${where}`);
  assert.ok(answer.body.error.message.length > 0, `a non-empty error.message: ${where}`);
  return code;
}

/** Values that are the wrong type almost anywhere, or hard to hold: huge numbers, odd unicode, deep nesting. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    5e-324,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\ud83d\ude00',
    '\u202e',
    'é',
    '9'.repeat(400),
    'x'.repeat(5000),
    '__proto__',
    'constructor',
    [],
    {},
    [[[[[[[[[[[]]]]]]]]]]],
  ),
  fc.string({ maxLength: 20, unit: 'grapheme' }),
  fc.string({ maxLength: 20, unit: 'binary' }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Mostly `valid`, now and then an odd value: a request with one odd member reaches further than one with several. */
export function mostly<T>(valid: fc.Arbitrary<T>, oddWeight = 1): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: oddWeight, arbitrary: oddValue });
}

type Json = unknown;

/** One edit of a parsed JSON document: a path into it (indexes taken modulo what is there) and what to do there. */
interface Edit {
  path: number[];
  kind: 'replace' | 'delete' | 'add' | 'wrap';
  key: string;
  value: unknown;
}

const editArb: fc.Arbitrary<Edit> = fc.record({
  path: fc.array(fc.nat(), { maxLength: 5 }),
  kind: fc.constantFrom<Edit['kind']>('replace', 'replace', 'delete', 'add', 'wrap'),
  key: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'id', 'type', 'config', 'q', 'name')),
  value: oddValue,
});

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The document with one edit applied at the node the path leads to (a copy; the input is kept). */
function applyEdit(doc: Json, edit: Edit, depth = 0): Json {
  const children = Array.isArray(doc) ? doc.map((_, i) => i) : isObject(doc) ? Object.keys(doc) : [];
  const step = edit.path[depth];
  if (step !== undefined && children.length > 0) {
    const child = children[step % children.length]!;
    if (Array.isArray(doc)) {
      const copy = [...doc];
      copy[child as number] = applyEdit(doc[child as number], edit, depth + 1);
      return copy;
    }
    const copy = { ...(doc as Record<string, Json>) };
    Object.defineProperty(copy, child, { value: applyEdit(copy[child as string], edit, depth + 1), enumerable: true, writable: true });
    return copy;
  }
  switch (edit.kind) {
    case 'replace':
      return edit.value;
    case 'wrap':
      return [doc];
    case 'delete':
      if (Array.isArray(doc)) return doc.slice(1);
      if (isObject(doc)) return Object.fromEntries(Object.entries(doc).slice(1));
      return undefined;
    case 'add':
      if (Array.isArray(doc)) return [...doc, edit.value];
      if (isObject(doc)) {
        const copy = { ...doc };
        Object.defineProperty(copy, edit.key, { value: edit.value, enumerable: true, writable: true });
        return copy;
      }
      return edit.value;
  }
}

/** Up to four structural edits of a valid document: wrong types, missing and unknown members, odd values deep inside. */
export function mutatedDocument(valid: Json): fc.Arbitrary<Json> {
  return fc.array(editArb, { minLength: 1, maxLength: 4 }).map((edits) => edits.reduce<Json>((doc, edit) => applyEdit(doc, edit), valid));
}

/** Edits of a document's text: truncation, a duplicated key, deep nesting, a huge number, bytes that are not UTF-8. */
export type TextEdit = 'truncate' | 'duplicate-key' | 'nest' | 'huge-number' | 'bad-utf8' | 'empty-lines' | 'none';

/** Mostly no edit, so that the structural mutations beneath reach past the JSON parser. */
export const textEditArb = fc.record({
  kind: fc.oneof(
    { weight: 6, arbitrary: fc.constant<TextEdit>('none') },
    { weight: 1, arbitrary: fc.constantFrom<TextEdit>('truncate', 'duplicate-key', 'nest', 'huge-number', 'bad-utf8', 'empty-lines') },
  ),
  at: fc.nat(),
  depth: fc.integer({ min: 1, max: 3000 }),
});

/** The bytes of `text` with one text edit. */
export function editText(text: string, edit: { kind: TextEdit; at: number; depth: number }): Buffer {
  const at = text.length === 0 ? 0 : edit.at % (text.length + 1);
  switch (edit.kind) {
    case 'truncate':
      return Buffer.from(text.slice(0, at));
    case 'duplicate-key': {
      // The first member of the first object, again: `{"a":1,"a":1,...}`.
      const member = /\{("[^"\\]*":(?:"[^"\\]*"|[-\d.eE+]+|true|false|null))/.exec(text);
      return Buffer.from(member === null ? text : text.replace(member[0], `${member[0]},${member[1]}`));
    }
    case 'nest':
      return Buffer.from(`${'['.repeat(edit.depth)}${text}${']'.repeat(edit.depth)}`);
    case 'huge-number': {
      const number = /-?\d+(\.\d+)?/.exec(text.slice(at));
      const huge = `1${'0'.repeat(edit.depth)}`;
      return Buffer.from(number === null ? text : text.slice(0, at) + text.slice(at).replace(number[0], huge));
    }
    case 'bad-utf8': {
      const bytes = Buffer.from(text);
      const cut = Math.min(at, bytes.length);
      return Buffer.concat([bytes.subarray(0, cut), Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]), bytes.subarray(cut)]);
    }
    case 'empty-lines':
      return Buffer.from(`\n\r\n${text.replace(/\n/g, '\n\n  \n')}\n\n`);
    case 'none':
      return Buffer.from(text);
  }
}

/** A value as a failure message shows it: bytes as short base64, long strings and arrays cut. */
export function brief(value: unknown): string {
  const text = JSON.stringify(value, (_key, member: unknown) => {
    if (
      member instanceof Uint8Array ||
      (typeof member === 'object' && member !== null && (member as { type?: string }).type === 'Buffer')
    ) {
      const bytes = Buffer.from(member instanceof Uint8Array ? member : ((member as { data: number[] }).data ?? []));
      return `<${bytes.length} bytes ${bytes.subarray(0, 60).toString('base64')}>`;
    }
    if (typeof member === 'string' && member.length > 200) return `${member.slice(0, 200)}...(${member.length} chars)`;
    if (Array.isArray(member) && member.length > 20) return [...member.slice(0, 20), `...(${member.length} items)`];
    return member;
  });
  return text === undefined ? String(value) : text.slice(0, 4000);
}

/**
 * fast-check's reporter for properties over large values: the failure, its seed and path, and the
 * counterexample cut short (fast-check's own report prints it whole, which can exceed a string).
 */
export function briefReporter<Ts>(details: fc.RunDetails<Ts>): void {
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"): ${cause}\n` +
      `counterexample: ${brief(details.counterexample)}`,
  );
}

/** The lines of a server's log that tell of a failure (an exception's name, an unhandled rejection, an INTERNAL_ERROR answer). */
export function failureLines(log: string): string[] {
  return log.split('\n').filter((line) => /INTERNAL_ERROR|TypeError|RangeError|ReferenceError|SyntaxError|unhandled rejection/.test(line));
}
