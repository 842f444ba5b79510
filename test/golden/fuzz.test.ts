/**
 * Golden fuzz: random pipelines built from the grammar's vocabulary (stages, dataset fields,
 * operators, every function with a random arity, literals, durations, globs, patterns), plus token
 * soup, sent to the running golden server. Every answer must be 200 with a well-formed result, or
 * 400 INVALID_QUERY with parse_code/line/column, or another error code of docs/api.md with a 4xx status: never
 * a 5xx, never a dropped connection; the server must still be healthy afterwards.
 *
 * The queries come from a fixed seed (FUZZ_SEED overrides it, FUZZ_RUNS the count), so a run is
 * reproducible; all violations are collected and reported together, grouped by kind.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { fuzzRuns } from '../helpers/fuzz';
import { request } from '../helpers/server';
import { RANGE } from './dataset';
import { golden } from './server';

const SEED = Number(process.env.FUZZ_SEED ?? 20260302);
const RUNS = fuzzRuns(800);

const FIELDS = [
  'host',
  'source',
  'level',
  'ms',
  'bytes',
  'code',
  'user',
  'delta',
  'ratio',
  'cached',
  'region',
  'tags',
  'when',
  'pad',
  'payload',
  'url',
  'status',
  'rid',
  '_time',
  '_raw',
  'index',
  'no_such',
  'req.ms',
  '`user agent`',
  'count',
  'method',
];
const SCALARS = [
  'lower',
  'upper',
  'len',
  'trim',
  'ltrim',
  'rtrim',
  'substr',
  'replace',
  'split',
  'contains',
  'startswith',
  'endswith',
  'match',
  'extract',
  'concat',
  'coalesce',
  'if',
  'case',
  'isnull',
  'isnotnull',
  'tonumber',
  'tostring',
  'toint',
  'round',
  'floor',
  'ceil',
  'abs',
  'sqrt',
  'ln',
  'log10',
  'pow',
  'exp',
  'least',
  'greatest',
  'now',
  'bin',
  'strftime',
  'strptime',
  'json_extract',
  'url_decode',
  'md5',
  'sha256',
  'nosuchfn',
  'LOWER',
];
const AGGREGATES = [
  'count',
  'countif',
  'sum',
  'avg',
  'min',
  'max',
  'dc',
  'values',
  'first',
  'last',
  'earliest',
  'latest',
  'median',
  'p50',
  'p75',
  'p90',
  'p95',
  'p99',
  'percentile',
  'stdev',
  'var',
  'rate',
  'dcount',
];
const STRINGS = [
  '"web-1"',
  '"error"',
  '""',
  '"Zoë"',
  '"a\\"b"',
  "'single'",
  '"%"',
  '"J%"',
  '"_o%"',
  '"[a-z]+"',
  '"(?<n>[0-9]+)"',
  '"(?P<x>a)|b"',
  '"^r[0-9]+$"',
  '"$.a.b"',
  '"$.arr[-1]"',
  '"%Y-%m-%d %H:%M:%S"',
  '"%s"',
  '","',
  '"timeout"',
  '"2026-03-02T09:00:00Z"',
  '"(unclosed"',
  '"a{1001}"',
  '"\\u00e9"',
  '"17"',
  '"  42 "',
  '"\\\\d+"',
  '"<a> - <b>"',
];
const DURATIONS = ['5m', '1h', '500ms', '1d', '30s', '1w', '0s'];
const NUMBERS = fc.oneof(
  fc.integer({ min: -1000, max: 100_000 }).map(String),
  fc.constantFrom('0', '0.5', '3.14', '1e6', '2.5E-3', '99.9', '100', '101', '-0'),
);

const field = fc.constantFrom(...FIELDS);
const literal = fc.oneof(NUMBERS, fc.constantFrom(...STRINGS), fc.constantFrom('true', 'false', 'null'), fc.constantFrom(...DURATIONS));

const { expr } = fc.letrec<{ expr: string; call: string; binary: string; special: string }>((tie) => ({
  expr: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    field,
    literal,
    tie('binary'),
    tie('call'),
    tie('special'),
    tie('expr').map((e) => `-${e}`),
    tie('expr').map((e) => `not ${e}`),
    tie('expr').map((e) => `(${e})`),
  ),
  binary: fc
    .tuple(
      tie('expr'),
      fc.constantFrom('+', '-', '*', '/', '%', '=', '==', '!=', '<', '<=', '>', '>=', 'and', 'or', 'AND'),
      tie('expr'),
      fc.boolean(),
    )
    .map(([a, op, b, paren]) => (paren ? `(${a} ${op} ${b})` : `${a} ${op} ${b}`)),
  call: fc.tuple(fc.constantFrom(...SCALARS), fc.array(tie('expr'), { maxLength: 4 })).map(([name, args]) => `${name}(${args.join(', ')})`),
  special: fc.oneof(
    fc
      .tuple(tie('expr'), fc.constantFrom('in', 'not in'), fc.array(tie('expr'), { minLength: 1, maxLength: 3 }))
      .map(([a, op, list]) => `${a} ${op} (${list.join(', ')})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('like', 'not like', 'has', 'not has'), fc.oneof(fc.constantFrom(...STRINGS), field))
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('expr'), fc.constantFrom('=~', '!~'), fc.constantFrom(...STRINGS)).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('expr'), fc.constantFrom('is null', 'is not null')).map(([a, op]) => `${a} ${op}`),
    fc.tuple(field, fc.constantFrom(...DURATIONS, '100', '0', '-5m')).map(([a, d]) => `bin(${a}, ${d})`),
  ),
}));

const name = fc.constantFrom('x', 'y', 'ms', 'user', 'a.b', '`new field`', 'host', '_time');
const glob = fc.constantFrom('host', 'r*', '*', '_t*', 'stat?s', 'no*such', 'ms', '`user`', 'req.*');
const count = fc.constantFrom('', ' 1', ' 5', ' 10', ' 0', ' -1', ' 1000', ' 2.5', ' 99999999999999999999');
const searchAtom = fc.oneof(
  fc.constantFrom(
    'timeout',
    'TIMEOUT',
    'zanzibar',
    'tim*',
    '?eset',
    'error',
    'échec',
    '503',
    '10.0.0.1',
    '*',
    'AND',
    'OR',
    'NOT',
    '(',
    ')',
    'status>=500',
  ),
  fc.constantFrom('"connection reset"', '"port 22"', '""', "'x'"),
  fc
    .tuple(field, fc.constantFrom('=', '!='), fc.constantFrom('web-*', 'error', '"anne marie"', '5*', 'x', '$v'))
    .map(([f, op, v]) => `${f}${op}${v}`),
);
const aggregateCall = fc
  .tuple(fc.constantFrom(...AGGREGATES), fc.array(fc.oneof(field, expr, NUMBERS), { maxLength: 2 }), fc.option(name, { nil: undefined }))
  .map(([agg, args, alias]) => `${agg}(${args.join(', ')})${alias === undefined ? '' : ` as ${alias}`}`);
const key = fc.oneof(
  field,
  fc.tuple(field, fc.constantFrom(...DURATIONS, '10')).map(([f, d]) => `bin(${f}, ${d})`),
  expr,
);

const stage = fc.oneof(
  expr.map((e) => `where ${e}`),
  fc.array(searchAtom, { minLength: 1, maxLength: 5 }).map((atoms) => `search ${atoms.join(' ')}`),
  fc.array(fc.tuple(name, expr), { minLength: 1, maxLength: 3 }).map((list) => `extend ${list.map(([n, e]) => `${n} = ${e}`).join(', ')}`),
  fc
    .tuple(
      fc.constantFrom('json', 'kv', 'logfmt', 'regex', 'pattern', 'combined', 'clf', 'syslog', 'JSON', 'xml'),
      field,
      fc.option(fc.constantFrom('"(?<verb>[A-Z]+) "', '"<ip> - <user> [<ts>]"', '"<a><b>"', '"no groups"', '"(?<user>10)[.]"', '"(?=x)"'), {
        nil: undefined,
      }),
    )
    .map(([fmt, f, pattern]) => `parse ${fmt}(${f}${pattern === undefined ? '' : `, ${pattern}`})`),
  fc.array(glob, { minLength: 1, maxLength: 3 }).map((g) => `keep ${g.join(', ')}`),
  fc.array(glob, { minLength: 1, maxLength: 3 }).map((g) => `drop ${g.join(', ')}`),
  fc.tuple(field, name).map(([a, b]) => `rename ${a} as ${b}`),
  count.map((c) => `head${c}`),
  count.map((c) => `tail${c}`),
  fc.array(field, { minLength: 1, maxLength: 2 }).map((f) => `dedup ${f.join(', ')}`),
  fc
    .tuple(fc.array(aggregateCall, { maxLength: 3 }), fc.array(key, { maxLength: 2 }))
    .map(([aggs, keys]) => `stats ${aggs.join(', ')}${keys.length ? ` by ${keys.join(', ')}` : ''}`),
  fc
    .array(fc.tuple(fc.oneof(expr, fc.constantFrom('count()', 'avg(ms)')), fc.constantFrom('', ' asc', ' desc')), {
      minLength: 1,
      maxLength: 2,
    })
    .map((keys) => `sort ${keys.map(([e, d]) => e + d).join(', ')}`),
  fc
    .tuple(count, fc.array(field, { minLength: 1, maxLength: 2 }), fc.array(field, { maxLength: 1 }))
    .map(([c, fields, by]) => `top${c} ${fields.join(', ')}${by.length ? ` by ${by.join(', ')}` : ''}`),
  fc.constantFrom('eval x = 1', 'table a, b', 'timechart count', 'wher x = 1', 'from main', 'limit 5'),
);

const fromStage = fc.constantFrom('from *', 'from web', 'from app, main', 'from w*', 'from ma?n', 'from nope', 'from web, nope*');
const pipeline = fc.tuple(fromStage, fc.array(stage, { maxLength: 5 })).map(([from, stages]) => [from, ...stages].join(' | '));

const VOCABULARY = [
  'from',
  'where',
  'search',
  'stats',
  'sort',
  'top',
  'head',
  '|',
  '(',
  ')',
  ',',
  '=',
  '==',
  '"',
  "'",
  '`',
  '--',
  'and',
  'or',
  'not',
  'by',
  'as',
  'desc',
  'count()',
  'ms',
  'host',
  '5m',
  '42',
  '-',
  '*',
  '$v',
  '$nope',
  'bin(_time, 5m)',
  'in',
  'like',
  'is',
  'null',
];
const soup = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 15 }).map((tokens) => tokens.join(' '));

// --- a mostly valid generator: right arities, valid regexes, patterns and counts ----------------------

const NUM_FIELDS = ['ms', 'bytes', 'delta', 'code', 'status', 'ratio', 'no_such'];
const STR_FIELDS = ['host', 'source', 'level', 'user', 'region', 'tags', 'when', 'pad', 'payload', 'url', 'rid', '_raw', 'code', 'index'];
const REGEXES = ['"[aeiou]"', '"^r([0-9]+)$"', '"(?P<n>[0-9]+)"', '"page=([0-9]+)"', '"(?i)timeout"', '"[A-Z]"', '"(a)|(b)"'];
const ARITY: Record<string, [number, number]> = {
  lower: [1, 1],
  upper: [1, 1],
  len: [1, 1],
  trim: [1, 1],
  ltrim: [1, 1],
  rtrim: [1, 1],
  substr: [2, 3],
  split: [3, 3],
  contains: [2, 2],
  startswith: [2, 2],
  endswith: [2, 2],
  concat: [1, 4],
  coalesce: [1, 4],
  if: [3, 3],
  case: [2, 5],
  isnull: [1, 1],
  isnotnull: [1, 1],
  tonumber: [1, 1],
  tostring: [1, 1],
  toint: [1, 1],
  round: [1, 2],
  floor: [1, 1],
  ceil: [1, 1],
  abs: [1, 1],
  sqrt: [1, 1],
  ln: [1, 1],
  log10: [1, 1],
  pow: [2, 2],
  exp: [1, 1],
  least: [1, 4],
  greatest: [1, 4],
  url_decode: [1, 1],
  md5: [1, 1],
  sha256: [1, 1],
};

const { vexpr } = fc.letrec<{ vexpr: string; num: string; str: string; bool: string; vcall: string }>((tie) => ({
  vexpr: fc.oneof({ maxDepth: 3, depthSize: 'small' }, tie('num'), tie('str'), tie('bool'), tie('vcall')),
  num: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    fc.constantFrom(...NUM_FIELDS),
    NUMBERS,
    fc.tuple(tie('num'), fc.constantFrom('+', '-', '*', '/', '%'), tie('num')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('num').map((a) => `-${a}`),
    fc
      .tuple(fc.constantFrom('bin(_time, 5m)', 'now()', '_time', '_time - 1h'), fc.constantFrom('', ' - _time'))
      .map(([a, b]) => `(${a}${b})`),
    fc.tuple(tie('num'), fc.constantFrom(...DURATIONS, '10', '0.5')).map(([a, d]) => `bin(${a}, ${d})`),
    fc.tuple(tie('str'), fc.constantFrom('"$.a.b"', '"$.arr[-1]"', '"$.req.ms"')).map(([a, p]) => `json_extract(${a}, ${p})`),
  ),
  str: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    fc.constantFrom(...STR_FIELDS),
    fc.constantFrom(...STRINGS),
    fc.tuple(tie('str'), tie('vexpr')).map(([a, b]) => `${a} + ${b}`),
    fc.tuple(tie('str'), fc.constantFrom(...REGEXES), tie('str')).map(([a, re, w]) => `replace(${a}, ${re}, ${w})`),
    fc
      .tuple(tie('str'), fc.constantFrom(...REGEXES), fc.constantFrom('', ', 0', ', 1', ', "n"'))
      .map(([a, re, g]) => `extract(${a}, ${re}${g})`),
    fc
      .tuple(fc.constantFrom('_time', 'now()', 'bin(_time, 1h)', 'ms'), fc.constantFrom('"%Y-%m-%d %H:%M:%S.%L"', '"%s %j %a"', '"%F"'))
      .map(([t, f]) => `strftime(${t}, ${f})`),
    fc.tuple(tie('str'), fc.constantFrom('"%Y-%m-%d %H:%M:%S"', '"%s"', '"%d/%b/%Y:%H:%M:%S %z"')).map(([a, f]) => `strptime(${a}, ${f})`),
  ),
  bool: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    fc.tuple(tie('vexpr'), fc.constantFrom('=', '==', '!=', '<', '<=', '>', '>='), tie('vexpr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('bool'), fc.constantFrom('and', 'or', 'AND', 'Or'), tie('bool')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('bool').map((a) => `not ${a}`),
    fc
      .tuple(tie('vexpr'), fc.constantFrom('in', 'not in'), fc.array(tie('vexpr'), { minLength: 1, maxLength: 3 }))
      .map(([a, op, l]) => `${a} ${op} (${l.join(', ')})`),
    fc
      .tuple(
        tie('vexpr'),
        fc.constantFrom('like', 'not like', 'has', 'not has'),
        fc.oneof(fc.constantFrom(...STRINGS), fc.constantFrom(...STR_FIELDS)),
      )
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('vexpr'), fc.constantFrom('=~', '!~'), fc.constantFrom(...REGEXES)).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(tie('vexpr'), fc.constantFrom('is null', 'is not null')).map(([a, op]) => `${a} ${op}`),
    fc.tuple(tie('str'), fc.constantFrom(...REGEXES)).map(([a, re]) => `match(${a}, ${re})`),
    fc.constantFrom('cached', 'true', 'false', 'null'),
  ),
  vcall: fc.constantFrom(...Object.keys(ARITY)).chain((fn) => {
    const [min, max] = ARITY[fn]!;
    return fc.array(tie('vexpr'), { minLength: min, maxLength: max }).map((args) => `${fn}(${args.join(', ')})`);
  }),
}));

const AGG_ARITY: Record<string, number> = {
  count: 0,
  sum: 1,
  avg: 1,
  min: 1,
  max: 1,
  dc: 1,
  values: 1,
  first: 1,
  last: 1,
  earliest: 1,
  latest: 1,
  median: 1,
  p50: 1,
  p75: 1,
  p90: 1,
  p95: 1,
  p99: 1,
  stdev: 1,
  var: 1,
  rate: 0,
};
const vagg = fc.oneof(
  fc.tuple(fc.constantFrom(...Object.keys(AGG_ARITY)), vexpr).map(([a, e]) => `${a}(${AGG_ARITY[a] === 0 ? '' : e})`),
  fc.tuple(vexpr, fc.constantFrom('0.1', '50', '99.9', '100')).map(([e, q]) => `percentile(${e}, ${q})`),
  vexpr.map((e) => `countif(${e})`),
  fc.constantFrom('count()', 'count(user)', 'avg(ms)', 'p99(ms)', 'dc(host)'),
);
const vkey = fc.oneof(
  fc.constantFrom(...FIELDS.slice(0, 20)),
  fc.constantFrom('bin(_time, 5m)', 'bin(_time, 1h)', 'bin(ms, 100)', 'lower(user)'),
  vexpr,
);
const vcount = fc.constantFrom('', ' 1', ' 3', ' 10', ' 50');
const vstage = fc.oneof(
  vexpr.map((e) => `where ${e}`),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'timeout',
          'TIMEOUT',
          'zanzibar',
          'tim*',
          'error',
          'échec',
          '503',
          '"connection reset"',
          '"port 22"',
          'NOT reset',
          'OR',
        ),
        fc
          .tuple(field, fc.constantFrom('=', '!='), fc.constantFrom('web-*', 'error', '"anne marie"', '5*', 'x'))
          .map(([f, op, v]) => `${f}${op}${v}`),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((atoms) => `search ${atoms.join(' ')}`.replace(/ OR$/, '').replace(/search OR/, 'search')),
  fc.array(fc.tuple(name, vexpr), { minLength: 1, maxLength: 3 }).map((list) => `extend ${list.map(([n, e]) => `${n} = ${e}`).join(', ')}`),
  fc
    .tuple(fc.constantFrom('json', 'kv', 'logfmt', 'combined', 'clf', 'syslog'), fc.constantFrom('_raw', 'payload', 'url', 'no_such'))
    .map(([fmt, f]) => `parse ${fmt}(${f})`),
  fc
    .tuple(fc.constantFrom('regex', 'pattern'), fc.constantFrom('_raw', 'url'))
    .map(([fmt, f]) =>
      fmt === 'regex' ? `parse regex(${f}, "(?<verb>[A-Z]+) (?<user>[^ ]+)")` : `parse pattern(${f}, "<ip> - <user> [<ts>] <_>")`,
    ),
  fc.array(glob, { minLength: 1, maxLength: 3 }).map((g) => `keep ${g.join(', ')}`),
  fc.array(glob, { minLength: 1, maxLength: 2 }).map((g) => `drop ${g.join(', ')}`),
  fc.tuple(field, name).map(([a, b]) => `rename ${a} as ${b}`),
  vcount.map((c) => `head${c}`),
  vcount.map((c) => `tail${c}`),
  fc.array(field, { minLength: 1, maxLength: 2 }).map((f) => `dedup ${f.join(', ')}`),
  fc
    .tuple(fc.array(vagg, { minLength: 1, maxLength: 3 }), fc.array(vkey, { maxLength: 2 }))
    .map(([aggs, keys]) => `stats ${aggs.join(', ')}${keys.length ? ` by ${keys.join(', ')}` : ''}`),
  fc
    .array(fc.tuple(vexpr, fc.constantFrom('', ' asc', ' desc')), { minLength: 1, maxLength: 2 })
    .map((keys) => `sort ${keys.map(([e, d]) => e + d).join(', ')}`),
  fc
    .tuple(vcount, fc.array(field, { minLength: 1, maxLength: 2 }), fc.array(field, { maxLength: 1 }))
    .map(([c, fields, by]) => `top${c} ${fields.join(', ')}${by.length ? ` by ${by.join(', ')}` : ''}`),
);
const validPipeline = fc.tuple(fromStage, fc.array(vstage, { maxLength: 4 })).map(([from, stages]) => [from, ...stages].join(' | '));

const query = fc.oneof(
  { weight: 6, arbitrary: validPipeline },
  { weight: 3, arbitrary: pipeline },
  { weight: 1, arbitrary: soup },
  { weight: 1, arbitrary: pipeline.map((q) => `${q}\n-- comment`) },
);

/** error codes of docs/api.md with a 4xx status. */
const SPEC_4XX = new Set([
  'INVALID_JSON',
  'INVALID_REQUEST',
  'INVALID_QUERY',
  'QUERY_TOO_LARGE',
  'QUERY_MEMORY_EXCEEDED',
  'VALIDATION_ERROR',
  'AUTH_REQUIRED',
  'INVALID_TOKEN',
  'FORBIDDEN',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'TOO_MANY_REQUESTS',
]);

/** What is wrong with an answer, or null when it follows the contract. */
function violation(status: number, body: any): string | null {
  if (status === 200) {
    const data = body?.data;
    if (data?.type === 'events') {
      if (!Array.isArray(data.events) || typeof data.total !== 'number' || typeof data.has_more !== 'boolean')
        return 'malformed events result';
      return null;
    }
    if (data?.type === 'aggregate') {
      if (!Array.isArray(data.columns) || !Array.isArray(data.rows) || typeof data.total_rows !== 'number')
        return 'malformed aggregate result';
      if (data.rows.some((row: unknown) => !Array.isArray(row) || row.length !== data.columns.length))
        return 'aggregate row width differs from columns';
      return null;
    }
    return `200 without a result: ${JSON.stringify(body).slice(0, 120)}`;
  }
  const error = body?.error;
  if (status === 400 && error?.code === 'INVALID_QUERY') {
    if (!/^E0(0[1-9]|1[0-4])$/.test(error.parse_code ?? '')) return `INVALID_QUERY with parse_code ${JSON.stringify(error.parse_code)}`;
    if (!(error.line >= 1 && error.column >= 1)) return `INVALID_QUERY without a position (${error.line}:${error.column})`;
    if (typeof error.message !== 'string' || error.message === '') return 'INVALID_QUERY without a message';
    return null;
  }
  if (status >= 400 && status < 500 && SPEC_4XX.has(error?.code)) return null;
  return `${status} ${error?.code ?? ''}: ${String(error?.message ?? JSON.stringify(body)).slice(0, 100)}`;
}

describe('golden: fuzz', function () {
  this.timeout(120_000);

  before(async () => {
    await golden();
  });

  it(`${RUNS} random queries (seed ${SEED}): 200, 400 INVALID_QUERY or a 4xx of docs/api.md; never a 5xx or a dropped connection; the server stays up and healthy`, async () => {
    const { server } = await golden();
    const queries = fc.sample(query, { numRuns: RUNS, seed: SEED });
    const kinds = new Map<string, { count: number; examples: string[] }>();
    const tally = { ok: 0, invalid: 0, other4xx: 0 };
    const started = Date.now();
    for (const [k, q] of queries.entries()) {
      const variables = q.includes('$v') && k % 2 === 0 ? { v: 'web-1' } : undefined;
      let status = 0;
      let body: any = null;
      let failure: string | null;
      const logFrom = server.log.length;
      try {
        const answer = await request(`${server.api}/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ q, ...RANGE, limit: 100, ...(variables ? { variables } : {}) }),
        });
        status = answer.status;
        body = answer.body;
        failure = violation(status, body);
      } catch (error) {
        failure = `no answer (${(error as Error).message})`;
      }
      if (failure === null) {
        if (status === 200) tally.ok++;
        else if (body?.error?.code === 'INVALID_QUERY') tally.invalid++;
        else tally.other4xx++;
        continue;
      }
      // A 5xx is grouped by the error the server logged for it (its root cause), if any.
      const logged = status >= 500 ? /error POST \/api\/v1\/query: ([^\n]*)/.exec(server.log.slice(logFrom))?.[1] : undefined;
      const kind = (logged !== undefined ? `${status}: ${logged}` : failure).replace(/\d+/g, 'N').slice(0, 120);
      const entry = kinds.get(kind) ?? { count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < 3) entry.examples.push(q);
      kinds.set(kind, entry);
    }
    const elapsed = Date.now() - started;
    console.log(
      `      fuzz: ${queries.length} queries in ${elapsed} ms: ${tally.ok} ok, ${tally.invalid} INVALID_QUERY, ${tally.other4xx} other 4xx, ${[...kinds.values()].reduce((s, v) => s + v.count, 0)} violations`,
    );
    assert.ok(tally.ok > queries.length / 5, `too few valid queries (${tally.ok}): the generator is off`);
    const report = [...kinds.entries()].map(
      ([kind, { count, examples }]) => `${count} x ${kind}\n    e.g. ${examples.map((q) => JSON.stringify(q)).join('\n    e.g. ')}`,
    );
    assert.deepEqual(report, [], `violations:\n${report.join('\n')}`);

    assert.equal(server.process.exitCode, null, 'the server process is alive');
    const health = await request(`${server.url}/health`);
    assert.equal(health.status, 200);
    assert.equal(health.body.data.status, 'healthy');
    const answer = await request(`${server.api}/query?${new URLSearchParams({ q: 'from * | stats count()', ...RANGE })}`);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.data.rows, [[2000]]);
  });
});
