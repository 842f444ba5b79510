/**
 * Compiles expression ASTs into vectorized evaluators (see compiled.ts). Comparisons and text
 * operators live in compile-compare.ts, arithmetic in compile-arith.ts, calls in compile-call.ts.
 */
import type { Column } from '../../storage/core/column';
import type { Expr, Pos } from '../syntax/ast';
import { QueryError } from '../syntax/errors';
import type { Value } from '../value';
import { isNullAt, valueAt } from './access';
import { compileArithmetic, compileNegate } from './compile-arith';
import { compileCall } from './compile-call';
import { compileComparison, compileHas, compileIn, compileLike, compileRegex } from './compile-compare';
import { booleanExpr, constantExpr, selectTrue, type CompiledExpr, type CompileEnv } from './compiled';
import { setTruth, truthAt, truthColumn, type Batch } from './vectors';

const ONE_ROW: Batch = { rowCount: 1, columns: new Map() };
const ROW_ZERO = new Uint32Array([0]);

/** Replaces an expression whose inputs are all constant by its value. */
export function foldConstant(expr: CompiledExpr, inputs: CompiledExpr[]): CompiledExpr {
  if (expr.constant !== null || inputs.some((input) => input.constant === null)) return expr;
  const value = valueAt(expr.evaluate(ONE_ROW, ROW_ZERO, 1), 0);
  return constantExpr(value, expr.type, expr.duration);
}

export function compileExpr(expr: Expr, env: CompileEnv): CompiledExpr {
  switch (expr.kind) {
    case 'string':
      return constantExpr(expr.value, 'string');
    case 'number':
      return constantExpr(expr.value, 'number');
    case 'boolean':
      return constantExpr(expr.value, 'boolean');
    case 'null':
      return constantExpr(null, 'any');
    case 'duration':
      return constantExpr(expr.micros, 'number', true);
    case 'field':
      return compileField(env.resolveField(expr.name), env);
    case 'aggregate':
      // After `stats`, `count()` names its output column.
      return compileField(expr.column ?? expr.name, env);
    case 'negate': {
      const operand = compileExpr(expr.operand, env);
      return foldConstant(compileNegate(operand), [operand]);
    }
    case 'not': {
      const operand = compileExpr(expr.operand, env);
      return foldConstant(compileNot(operand), [operand]);
    }
    case 'logical': {
      const operands = expr.operands.map((operand) => compileExpr(operand, env));
      return foldConstant(compileLogical(expr.op, operands), operands);
    }
    case 'binary': {
      const left = compileExpr(expr.left, env);
      const right = compileExpr(expr.right, env);
      const compiled =
        expr.op === '=' || expr.op === '!=' || expr.op === '<' || expr.op === '<=' || expr.op === '>' || expr.op === '>='
          ? compileComparison(expr.op, left, right)
          : compileArithmetic(expr.op, left, right);
      return foldConstant(compiled, [left, right]);
    }
    case 'in': {
      const operand = compileExpr(expr.operand, env);
      const list = expr.list.map((item) => compileExpr(item, env));
      return foldConstant(compileIn(operand, list, expr.negated), [operand, ...list]);
    }
    case 'like': {
      const operand = compileExpr(expr.operand, env);
      const pattern = literalText(compileExpr(expr.pattern, env), 'the like pattern', expr.pattern.pos, '"%timeout%"');
      return foldConstant(compileLike(operand, pattern, expr.negated), [operand, pattern]);
    }
    case 'has': {
      const operand = compileExpr(expr.operand, env);
      const term = literalText(compileExpr(expr.term, env), 'the has term', expr.term.pos, '"timeout"');
      return foldConstant(compileHas(operand, term, expr.negated), [operand, term]);
    }
    case 'regex': {
      const operand = compileExpr(expr.operand, env);
      return foldConstant(compileRegex(operand, expr.pattern.value, expr.negated), [operand]);
    }
    case 'isnull': {
      const operand = compileExpr(expr.operand, env);
      return foldConstant(compileIsNull(operand, expr.negated), [operand]);
    }
    case 'call': {
      const args = expr.args.map((arg) => compileExpr(arg, env));
      const compiled = compileCall(expr, args, env);
      // now() is constant for the whole query; other calls fold when their arguments are constant.
      return foldConstant(compiled, args);
    }
  }
}

/** `like` patterns and `has` terms are constants (a number is read as its text); else E005. */
function literalText(expr: CompiledExpr, what: string, pos: Pos, example: string): CompiledExpr {
  const value = expr.constant?.value;
  if (typeof value === 'string') return expr;
  if (typeof value === 'number' || typeof value === 'boolean') return constantExpr(String(value), 'string');
  throw new QueryError('E005', `${what} must be a string literal`, pos, `a string such as ${example}`);
}

function compileField(name: string, env: CompileEnv): CompiledExpr {
  return {
    type: env.typeOf(name),
    duration: false,
    constant: null,
    fields: new Set([name]),
    field: name,
    evaluate(batch) {
      return batch.columns.get(name) ?? ({ kind: 'const', value: null, length: batch.rowCount } as Column);
    },
  };
}

export function compileNot(operand: CompiledExpr): CompiledExpr {
  return booleanExpr([operand], (batch, sel, n) => {
    const input = operand.evaluate(batch, sel, n);
    const out = truthColumn(batch.rowCount);
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      const truth = truthAt(input, row);
      setTruth(out, row, truth === 2 ? 2 : truth === 1 ? 0 : 1);
    }
    return out;
  });
}

/** Three-valued `and`/`or`: false wins for `and`, true wins for `or`, else null if any is null. */
export function compileLogical(op: 'and' | 'or', operands: CompiledExpr[]): CompiledExpr {
  const decisive = op === 'and' ? 0 : 1;
  return booleanExpr(
    operands,
    (batch, sel, n) => {
      const inputs = operands.map((operand) => operand.evaluate(batch, sel, n));
      const out = truthColumn(batch.rowCount);
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        let result: 0 | 1 | 2 = decisive === 0 ? 1 : 0;
        for (let j = 0; j < inputs.length; j++) {
          const truth = truthAt(inputs[j], row);
          if (truth === decisive) {
            result = decisive;
            break;
          }
          if (truth === 2) result = 2;
        }
        setTruth(out, row, result);
      }
      return out;
    },
    op === 'and'
      ? (batch, sel, n) => {
          // True only where every operand is: each narrows what the previous ones kept.
          for (const operand of operands) {
            if (n === 0) break;
            n = selectTrue(operand, batch, sel, n);
          }
          return n;
        }
      : undefined,
  );
}

function compileIsNull(operand: CompiledExpr, negated: boolean): CompiledExpr {
  return booleanExpr([operand], (batch, sel, n) => {
    const input = operand.evaluate(batch, sel, n);
    const out = truthColumn(batch.rowCount);
    for (let i = 0; i < n; i++) {
      const row = sel[i];
      out.values[row] = isNullAt(input, row) !== negated ? 1 : 0;
    }
    return out;
  });
}

/** The values of an evaluated column at the selected rows, for row-wise code paths. */
export function selectedValues(column: Column, sel: Uint32Array, n: number, out: Value[]): void {
  for (let i = 0; i < n; i++) out[sel[i]] = valueAt(column, sel[i]);
}
