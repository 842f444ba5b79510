/**
 * The contract of scalar function implementations. The planner creates one instance per call
 * site with the static types of the arguments and the values of constant arguments (so regexes
 * and formats compile once), then calls it per row with the evaluated arguments.
 */
import type { EvalContext, StaticType, Value } from '../value';
import type { ScalarFunctionName } from './names';
import type { FunctionSpec } from './spec';

export interface FunctionSite {
  name: ScalarFunctionName;
  /** Static type of each argument (times are microseconds with type `time`). */
  argTypes: StaticType[];
  /** The value of each argument that is a constant (a literal after folding), else undefined. */
  constants: (Value | undefined)[];
  ctx: EvalContext;
}

export interface ScalarFunction {
  /** Static type of the result (`time` for now(), bin() of a time, strptime()). */
  resultType: StaticType;
  /** Evaluates one row. `args` is reused by the caller between rows: do not keep it. */
  call(args: readonly Value[]): Value;
}

/**
 * Thrown at plan time for bad constant arguments (an invalid regex, a bad format): E005/E008. The
 * suggestion says what to write instead; without one the function's signature is offered.
 */
export class FunctionArgumentError extends Error {
  constructor(
    message: string,
    readonly code: 'E005' | 'E008',
    readonly argument: number,
    readonly suggestion: string | null = null,
  ) {
    super(message);
    this.name = 'FunctionArgumentError';
  }
}

export type ScalarFactory = (site: FunctionSite) => ScalarFunction;

/** A scalar function's whole definition: what the query checks read, and its factory. */
export interface ScalarDefinition extends FunctionSpec {
  readonly factory: ScalarFactory;
}

/** A family file's table (`satisfies` it: a name missing from names.ts is a compile error). */
export type ScalarFamily = Partial<Record<ScalarFunctionName, ScalarDefinition>>;
