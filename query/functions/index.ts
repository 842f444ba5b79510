// The scalar functions of docs/language.md, one factory per name (semantics in README.md).

import type { ScalarFunctionName } from '../syntax/ast';
import { CONDITIONAL_FUNCTIONS } from './conditional';
import { HASH_FUNCTIONS } from './hash';
import { JSON_FUNCTIONS } from './json';
import { NUMERIC_FUNCTIONS } from './numeric';
import { REGEX_FUNCTIONS } from './regex';
import { STRING_FUNCTIONS } from './string';
import { TIME_FUNCTIONS } from './time';
import type { ScalarFactory } from './types';

export const SCALAR_FUNCTIONS_IMPL: Readonly<Record<ScalarFunctionName, ScalarFactory>> = {
  ...STRING_FUNCTIONS,
  ...REGEX_FUNCTIONS,
  ...NUMERIC_FUNCTIONS,
  ...CONDITIONAL_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...JSON_FUNCTIONS,
  ...HASH_FUNCTIONS,
};

export { FunctionArgumentError } from './types';
export type { FunctionSite, ScalarFactory, ScalarFunction } from './types';
export { compileRegex, requiredLiteral, UserRegex } from './userregex';
export { formatTime } from '../value';
