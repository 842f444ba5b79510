// The registry of scalar functions: every family file's definitions (spec and factory, semantics in
// README.md), in the order of names.ts. query/syntax checks calls against it, query/exec builds them.

import { CONDITIONAL_FUNCTIONS } from './conditional';
import { HASH_FUNCTIONS } from './hash';
import { JSON_FUNCTIONS } from './json';
import { SCALAR_FUNCTION_NAMES, type ScalarFunctionName } from './names';
import { NUMERIC_FUNCTIONS } from './numeric';
import { REGEX_FUNCTIONS } from './regex';
import { inNameOrder } from './spec';
import { STRING_FUNCTIONS } from './string';
import { TIME_FUNCTIONS } from './time';
import type { ScalarDefinition, ScalarFactory } from './types';

const FAMILIES = [
  STRING_FUNCTIONS,
  REGEX_FUNCTIONS,
  NUMERIC_FUNCTIONS,
  CONDITIONAL_FUNCTIONS,
  TIME_FUNCTIONS,
  JSON_FUNCTIONS,
  HASH_FUNCTIONS,
];

// A name of names.ts that no family defines is a compile error here.
export const SCALAR_FUNCTIONS: Readonly<Record<ScalarFunctionName, ScalarDefinition>> = inNameOrder(
  'scalar function',
  SCALAR_FUNCTION_NAMES,
  FAMILIES,
);

export const SCALAR_FUNCTIONS_IMPL: Readonly<Record<ScalarFunctionName, ScalarFactory>> = Object.fromEntries(
  SCALAR_FUNCTION_NAMES.map((name) => [name, SCALAR_FUNCTIONS[name].factory]),
) as Record<ScalarFunctionName, ScalarFactory>;

export function isScalarFunction(name: string): name is ScalarFunctionName {
  return Object.prototype.hasOwnProperty.call(SCALAR_FUNCTIONS, name);
}

export { SCALAR_FUNCTION_NAMES, type ScalarFunctionName } from './names';
export type { Alias, FunctionSpec } from './spec';
export { FunctionArgumentError } from './types';
export type { FunctionSite, ScalarDefinition, ScalarFactory, ScalarFunction } from './types';
export { compileRegex, requiredLiteral, UserRegex } from './userregex';
export { formatTime } from '../value';
