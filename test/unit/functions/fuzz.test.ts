import { strict as assert } from 'assert';
import fc from 'fast-check';
import { SCALAR_FUNCTIONS_IMPL } from '../../../query/functions/index';
import { FunctionArgumentError, type ScalarFunction } from '../../../query/functions/types';
import type { ScalarFunctionName } from '../../../query/syntax/ast';
import { SCALAR_FUNCTIONS } from '../../../query/syntax/functions';
import type { StaticType, Value } from '../../../query/value';
import { CTX } from './helpers';

const NAMES = Object.keys(SCALAR_FUNCTIONS) as ScalarFunctionName[];
const TYPES: StaticType[] = ['time', 'number', 'string', 'boolean', 'any'];

/** Constants the validator lets through: regexes, formats and paths are string literals. */
const CONSTANTS: Partial<Record<ScalarFunctionName, Record<number, Value>>> = {
  match: { 1: '(\\w+)=(?P<v>\\d+)' },
  extract: { 1: '(\\w+)=(?P<v>\\d+)' },
  replace: { 1: '(\\w+)=(?P<v>\\d+)' },
  json_extract: { 1: '$.a.b[0]' },
  strftime: { 1: '%Y-%m-%dT%H:%M:%S.%3N %j %a %b %e %I %p %z %Z %s %%' },
  strptime: { 1: '%Y-%m-%d %H:%M:%S' },
};

const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.integer({ min: -1e16, max: 1e16 }),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '42',
    '-0',
    '1e400',
    'Infinity',
    '%',
    '%zz',
    '%E2%82',
    '{"a":{"b":[1]}}',
    '[',
    'a=1',
    '\ud800',
    '2024-05-06T07:08:09Z',
    '2024-05-06 07:08:09',
    'NaN',
  ),
);

function isValue(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  return typeof v === 'number' && Number.isFinite(v);
}

function build(
  name: ScalarFunctionName,
  arity: number,
  types: StaticType[],
  constArgs: boolean[],
): { f: ScalarFunction; constants: (Value | undefined)[] } {
  const fixed = CONSTANTS[name] ?? {};
  const constants: (Value | undefined)[] = [];
  for (let i = 0; i < arity; i++) constants.push(i in fixed ? fixed[i] : undefined);
  return {
    f: SCALAR_FUNCTIONS_IMPL[name]({ name, argTypes: types.slice(0, arity), constants, ctx: CTX }),
    constants: constArgs.map((c, i) => (c ? constants[i] : undefined)),
  };
}

describe('functions: property tests', () => {
  it('every function is implemented', () => {
    assert.deepEqual(Object.keys(SCALAR_FUNCTIONS_IMPL).sort(), [...NAMES].sort());
  });

  it('calls never throw and return values (no NaN, no infinity, no undefined)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.array(fc.constantFrom(...TYPES), { minLength: 8, maxLength: 8 }),
        fc.array(value, { minLength: 8, maxLength: 8 }),
        fc.nat(),
        (name, types, args, pick) => {
          const spec = SCALAR_FUNCTIONS[name];
          const max = Math.min(spec.max, 7);
          const arity = spec.min + (pick % (max - spec.min + 1));
          const { f, constants } = build(name, arity, types, []);
          const row = args.slice(0, arity).map((a, i) => constants[i] ?? a);
          const out = f.call(row);
          // Values never hold NaN or infinities (arithmetic gives null); with such inputs only require no throw.
          if (row.every(isValue)) assert.ok(isValue(out), `${name}(${JSON.stringify(row)}) = ${String(out)}`);
          // The result is stable (no state kept between rows).
          assert.deepEqual(f.call(row), out);
        },
      ),
      { numRuns: 20000 },
    );
  });

  it('factories either build or throw FunctionArgumentError for any constants', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.array(value, { minLength: 4, maxLength: 4 }),
        fc.array(fc.constantFrom(...TYPES), { minLength: 4, maxLength: 4 }),
        (name, constants, types) => {
          const spec = SCALAR_FUNCTIONS[name];
          const arity = Math.min(Math.max(spec.min, 2), spec.max);
          try {
            const f = SCALAR_FUNCTIONS_IMPL[name]({
              name,
              argTypes: types.slice(0, arity),
              constants: constants.slice(0, arity),
              ctx: CTX,
            });
            const row = constants.slice(0, arity);
            const out = f.call(row);
            if (row.every(isValue)) assert.ok(isValue(out));
          } catch (e) {
            if (!(e instanceof FunctionArgumentError)) throw e;
            assert.ok(e.code === 'E005' || e.code === 'E008');
          }
        },
      ),
      { numRuns: 5000 },
    );
  });
});
