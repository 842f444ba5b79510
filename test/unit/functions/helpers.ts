import { SCALAR_FUNCTIONS_IMPL } from '../../../query/functions/index';
import type { ScalarFunction } from '../../../query/functions/types';
import type { ScalarFunctionName } from '../../../query/syntax/ast';
import type { EvalContext, StaticType, Value } from '../../../query/value';

/** 2024-05-06T07:08:09.123456Z */
export const NOW = Date.UTC(2024, 4, 6, 7, 8, 9, 123) * 1000 + 456;
export const CTX: EvalContext = { nowMicros: NOW, fromMicros: NOW - 3600e6, toMicros: NOW };

/** An argument: a plain value (type `any`, not constant), or one with a static type and/or constant. */
export interface Arg {
  type?: StaticType;
  constant?: Value;
}

/** Builds a function for a call site; `constants` marks arguments as literals. */
export function make(name: ScalarFunctionName, argTypes: StaticType[], constants: (Value | undefined)[] = []): ScalarFunction {
  return SCALAR_FUNCTIONS_IMPL[name]({ name, argTypes, constants, ctx: CTX });
}

/** Calls name(args) with all arguments of type `any` and not constant. */
export function call(name: ScalarFunctionName, ...args: Value[]): Value {
  return make(
    name,
    args.map(() => 'any'),
  ).call(args);
}

/** Calls name(args) with the given arguments constant (as literals are), types from the values. */
export function callConst(name: ScalarFunctionName, ...args: Value[]): Value {
  return make(name, args.map(typeOf), args).call(args);
}

export function typeOf(v: Value): StaticType {
  return typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : 'any';
}

/** A function whose regex/format/path argument (index `at`) is the constant `c`. */
export function withConst(name: ScalarFunctionName, arity: number, at: number, c: Value): ScalarFunction {
  const types: StaticType[] = Array.from({ length: arity }, (_, i) => (i === at ? typeOf(c) : 'any'));
  const constants: (Value | undefined)[] = Array.from({ length: arity }, (_, i) => (i === at ? c : undefined));
  return make(name, types, constants);
}
