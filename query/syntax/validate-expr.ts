// Checks expressions after parsing and puts them in final form: flattens and/or chains, tells scalar
// calls from aggregates, and reports E004/E005/E008/E009/E010/E012 and too-deep nesting.

import type * as A from './ast';
import { QueryError } from './errors';
import {
  AGGREGATE_FUNCTIONS,
  FUNCTION_HINTS,
  SCALAR_FUNCTIONS,
  isAggregateFunction,
  isScalarFunction,
  type FunctionSpec,
} from './functions';
import { exprToString } from './print';
import { checkRegex, patternError } from './regex';
import { hintFor, nearest } from './suggest';
import { likeRegex, wildcardRefusal } from './wildcards';

/** Deeper expressions are refused (E001): walkers here and in the planner recurse. */
export const MAX_EXPR_DEPTH = 256;

export interface ExprScope {
  readonly errors: QueryError[];
  /** Canonical call text -> column, for aggregate calls that name a column of the preceding stats/top. */
  readonly columns: ReadonlyMap<string, string> | null;
  /** Inside an aggregate's arguments (an aggregate there is an error). */
  readonly inAggregate: boolean;
  /** Where the expression is, for E010 messages ("in a stats by key"). */
  readonly place: string;
}

export function checkExpr(e: A.Expr, scope: ExprScope, depth = 0): A.Expr {
  if (depth > MAX_EXPR_DEPTH) {
    scope.errors.push(
      new QueryError('E001', `expression nested more than ${MAX_EXPR_DEPTH} levels deep`, e.pos, `nest at most ${MAX_EXPR_DEPTH} levels`),
    );
    // Cut the subtree so that later steps (printing, naming) never walk an unbounded depth.
    return { kind: 'null', pos: e.pos };
  }
  const sub = (x: A.Expr): A.Expr => checkExpr(x, scope, depth + 1);
  switch (e.kind) {
    case 'logical':
      e.operands = flatten(e).map(sub);
      return e;
    case 'not':
    case 'negate':
    case 'isnull':
      e.operand = sub(e.operand);
      return e;
    case 'binary':
      e.left = sub(e.left);
      e.right = sub(e.right);
      return e;
    case 'in':
      e.operand = sub(e.operand);
      e.list = e.list.map(sub);
      return e;
    case 'like':
      e.operand = sub(e.operand);
      e.pattern = sub(e.pattern);
      checkLikeLiteral(e.pattern, scope);
      return e;
    case 'has':
      e.operand = sub(e.operand);
      e.term = sub(e.term);
      return e;
    case 'regex':
      e.operand = sub(e.operand);
      checkRegexLiteral(e.pattern, scope);
      return e;
    case 'call':
      return checkCall(e, scope, depth);
    default:
      return e;
  }
}

/** `a or (b or c) or d` -> [a, b, c, d], without recursion along the (possibly very long) chain. */
function flatten(e: A.LogicalExpr): A.Expr[] {
  const out: A.Expr[] = [];
  const stack: A.Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (x.kind === 'logical' && x.op === e.op) {
      for (let i = x.operands.length - 1; i >= 0; i--) stack.push(x.operands[i]!);
    } else {
      out.push(x);
    }
  }
  return out;
}

function checkCall(e: A.CallExpr, scope: ExprScope, depth: number): A.Expr {
  const name: string = e.name;
  if (isAggregateFunction(name)) {
    if ((name === 'min' || name === 'max') && e.args.length >= 2 && !scope.inAggregate) {
      // `max(a, b)` outside stats is almost surely meant as greatest(a, b): one clear E010.
      const args = e.args.map((a) => checkExpr(a, scope, depth + 1));
      const agg: A.AggregateCall = { kind: 'aggregate', name, args, column: null, pos: e.pos };
      scope.errors.push(aggregateOutsideStats(agg, scope));
      return agg;
    }
    const agg = checkAggregateCall(e, scope, depth);
    const column = scope.columns?.get(exprToString(agg));
    if (scope.inAggregate) {
      const twoSteps = `compute ${name}() in a stats first, then aggregate its column in a second stats`;
      scope.errors.push(new QueryError('E010', `aggregate ${name}() cannot be used inside another aggregate`, e.pos, twoSteps));
    } else if (column !== undefined) {
      agg.column = column;
    } else {
      scope.errors.push(aggregateOutsideStats(agg, scope));
    }
    return agg;
  }
  e.args = e.args.map((a) => checkExpr(a, scope, depth + 1));
  if (!isScalarFunction(name)) {
    const hint = hintFor(FUNCTION_HINTS, name) ?? nearest(name, [...Object.keys(SCALAR_FUNCTIONS), ...Object.keys(AGGREGATE_FUNCTIONS)]);
    const tail = hint ? `; did you mean ${hint}?` : '';
    // No near name: the functions that fit here (aggregates in a stats column).
    const known = Object.keys(scope.place === 'in stats' ? AGGREGATE_FUNCTIONS : SCALAR_FUNCTIONS);
    scope.errors.push(new QueryError('E004', `unknown function ${name}()${tail}`, e.pos, hint ?? `one of: ${known.join(', ')}`));
    return e;
  }
  if (checkArity(e, SCALAR_FUNCTIONS[e.name], scope)) checkScalarArgs(e, scope);
  return e;
}

/** Checks a call to an aggregate function (arity, percentile, arguments) and returns the aggregate node. */
export function checkAggregateCall(e: A.CallExpr, scope: ExprScope, depth: number): A.AggregateCall {
  const argScope: ExprScope = { ...scope, columns: null, inAggregate: true };
  const args = e.args.map((a) => checkExpr(a, argScope, depth + 1));
  const agg: A.AggregateCall = { kind: 'aggregate', name: e.name as unknown as A.AggregateFunctionName, args, column: null, pos: e.pos };
  if (checkArity(agg, AGGREGATE_FUNCTIONS[agg.name], scope) && agg.name === 'percentile') {
    const q = args[1]!;
    if (q.kind !== 'number' || !(q.value > 0 && q.value <= 100)) {
      scope.errors.push(
        new QueryError(
          'E012',
          `percentile() needs a number q with 0 < q <= 100 as its second argument, got ${brief(exprToString(q))}`,
          q.pos,
          'percentile(x, 95)',
        ),
      );
    }
  }
  return agg;
}

function aggregateOutsideStats(agg: A.AggregateCall, scope: ExprScope): QueryError {
  const text = exprToString(agg);
  if ((agg.name === 'min' || agg.name === 'max') && agg.args.length >= 2) {
    const fn = agg.name === 'min' ? 'least' : 'greatest';
    const call = `${fn}(${agg.args.map(exprToString).join(', ')})`;
    return new QueryError(
      'E010',
      `${agg.name}() is an aggregate; for the ${agg.name === 'min' ? 'smallest' : 'largest'} of several values use ${fn}()`,
      agg.pos,
      call.length > 200 ? `${fn}(...)` : call,
    );
  }
  const where = scope.columns ? 'it is not a column of the preceding stats' : `use it in stats, e.g. stats ${brief(text)}`;
  return new QueryError(
    'E010',
    `aggregate ${brief(text)} cannot be used ${scope.place}: ${where}`,
    agg.pos,
    outsideStatsSuggestion(text, scope.columns),
  );
}

function outsideStatsSuggestion(text: string, columns: ReadonlyMap<string, string> | null): string {
  if (columns === null) return text.length > 200 ? 'move the aggregate into a stats stage' : `stats ${text}`;
  const computed = columns.size > 0 ? ` (it computes ${brief([...columns.keys()].join(', '))})` : '';
  return `add ${brief(text)} to the preceding stats${computed}`;
}

/** Expression text short enough for a message. */
function brief(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function plural(n: number): string {
  return n === 1 ? '1 argument' : `${n} arguments`;
}

function checkArity(e: A.CallExpr | A.AggregateCall, spec: FunctionSpec, scope: ExprScope): boolean {
  const n = e.args.length;
  if (n >= spec.min && n <= spec.max) return true;
  const want =
    spec.min === spec.max
      ? plural(spec.min)
      : spec.max === Infinity
        ? `at least ${plural(spec.min)}`
        : `${spec.min} to ${plural(spec.max)}`;
  scope.errors.push(new QueryError('E005', `${e.name}() takes ${want}, got ${n}`, e.pos, spec.signature));
  return false;
}

function checkRegexLiteral(p: A.Expr, scope: ExprScope): void {
  if (p.kind !== 'string') return;
  const r = checkRegex(p.value);
  if (!r.ok) scope.errors.push(patternError('regular expression', r, p.pos));
}

function checkLikeLiteral(p: A.Expr, scope: ExprScope): void {
  if (p.kind !== 'string') return;
  const refusal = wildcardRefusal(likeRegex(p.value));
  if (refusal !== null) scope.errors.push(patternError('like pattern', refusal, p.pos));
}

function regexArgument(e: A.CallExpr, i: number, scope: ExprScope): void {
  const arg = e.args[i]!;
  if (arg.kind !== 'string') {
    scope.errors.push(
      new QueryError('E005', `the regular expression of ${e.name}() must be a string literal`, arg.pos, SCALAR_FUNCTIONS[e.name].signature),
    );
    return;
  }
  checkRegexLiteral(arg, scope);
}

function checkScalarArgs(e: A.CallExpr, scope: ExprScope): void {
  const args = e.args;
  switch (e.name) {
    case 'match':
    case 'extract':
    case 'replace':
      regexArgument(e, 1, scope);
      if (e.name === 'extract' && args[2]?.kind === 'number' && !(Number.isInteger(args[2].value) && args[2].value >= 0)) {
        scope.errors.push(new QueryError('E005', 'the group of extract() must be a whole number >= 0 or a group name', args[2].pos, '1'));
      }
      return;
    case 'round':
      if (args[1]?.kind === 'number' && !Number.isInteger(args[1].value)) {
        scope.errors.push(
          new QueryError('E005', 'the digits of round() must be a whole number', args[1].pos, String(Math.round(args[1].value))),
        );
      }
      return;
    case 'json_extract':
      if (args[1]?.kind === 'string' && !args[1].value.startsWith('$')) {
        scope.errors.push(
          new QueryError('E005', 'the path of json_extract() must start with "$", e.g. "$.a.b"', args[1].pos, `"$.${args[1].value}"`),
        );
      }
      return;
    case 'bin': {
      const size = args[1]!;
      if (size.kind === 'duration') {
        if (size.micros <= 0) scope.errors.push(new QueryError('E009', 'the bin size must be a positive duration', size.pos, '5m'));
      } else if (size.kind === 'number') {
        if (!(size.value > 0))
          scope.errors.push(new QueryError('E005', 'the bin size must be positive', size.pos, String(Math.abs(size.value) || 1)));
      } else {
        scope.errors.push(new QueryError('E009', 'bin() needs a duration literal such as 5m (or a positive number)', size.pos, '5m'));
      }
      return;
    }
    default:
  }
}
