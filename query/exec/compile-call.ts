/**
 * Scalar function calls: one function instance per call site (constant arguments such as
 * regexes and formats compiled once), evaluated row by row into a column, with a vectorized
 * fast path for `bin()` of a column (the key of every time chart).
 */
import type { Column } from '../../storage/core/column';
import { SCALAR_FUNCTIONS, SCALAR_FUNCTIONS_IMPL } from '../functions';
import { FunctionArgumentError } from '../functions/types';
import type { CallExpr } from '../syntax/ast';
import { QueryError } from '../syntax/errors';
import type { Value } from '../value';
import { numberAt, valueAt } from './access';
import type { CompiledExpr, CompileEnv } from './compiled';
import { unionFields } from './compiled';
import { numberColumn } from './vectors';

export function compileCall(call: CallExpr, args: CompiledExpr[], env: CompileEnv): CompiledExpr {
  let fn;
  try {
    fn = SCALAR_FUNCTIONS_IMPL[call.name]({
      name: call.name,
      argTypes: args.map((arg) => arg.type),
      constants: args.map((arg) => (arg.constant === null ? undefined : arg.constant.value)),
      ctx: env.ctx,
    });
  } catch (error) {
    if (error instanceof FunctionArgumentError) {
      const position = call.args[error.argument]?.pos ?? call.pos;
      throw new QueryError(error.code, error.message, position, error.suggestion ?? SCALAR_FUNCTIONS[call.name].signature);
    }
    throw error;
  }
  const fields = unionFields(...args);
  const binSize = call.name === 'bin' && args[1]?.constant !== null ? args[1]?.constant?.value : undefined;
  if (call.name === 'bin' && typeof binSize === 'number' && binSize > 0 && args[0].constant === null) {
    return compileBin(args[0], binSize, fn.resultType, fields);
  }
  const constantNow = call.name === 'now';
  return {
    type: fn.resultType,
    duration: false,
    constant: constantNow ? { value: fn.call([]) } : null,
    fields,
    evaluate(batch, sel, n) {
      const inputs = args.map((arg) => arg.evaluate(batch, sel, n));
      const argv: Value[] = new Array<Value>(args.length).fill(null);
      const out: Value[] = new Array<Value>(batch.rowCount).fill(null);
      let numbers = true;
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        for (let a = 0; a < inputs.length; a++) argv[a] = valueAt(inputs[a], row);
        const value = fn.call(argv);
        out[row] = value;
        if (value !== null && typeof value !== 'number') numbers = false;
      }
      return numbers ? toNumberColumn(out, sel, n, batch.rowCount) : { kind: 'mixed', values: out };
    },
  };
}

function toNumberColumn(values: Value[], sel: Uint32Array, n: number, rowCount: number): Column {
  const out = numberColumn(rowCount);
  for (let i = 0; i < n; i++) {
    const row = sel[i];
    const value = values[row];
    if (value === null) out.nulls[row] = 1;
    else out.values[row] = value as number;
  }
  return out;
}

/** `bin(x, size)`: floor to a multiple of size (microseconds for a time, plain units for a number). */
function compileBin(input: CompiledExpr, size: number, type: CompiledExpr['type'], fields: Set<string>): CompiledExpr {
  return {
    type,
    duration: false,
    constant: null,
    fields,
    evaluate(batch, sel, n) {
      const column = input.evaluate(batch, sel, n);
      const out = numberColumn(batch.rowCount);
      out.allIntegers = Number.isInteger(size);
      if (column.kind === 'time') {
        const values = column.values;
        for (let i = 0; i < n; i++) {
          const row = sel[i];
          out.values[row] = Math.floor(values[row] / size) * size;
        }
        return out;
      }
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        const value = numberAt(column, row);
        if (Number.isNaN(value)) out.nulls[row] = 1;
        else out.values[row] = Math.floor(value / size) * size;
      }
      return out;
    },
  };
}
