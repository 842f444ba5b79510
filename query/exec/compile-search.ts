/**
 * The `search` stage: terms and phrases match `_raw` case-insensitively as whole tokens,
 * `field=value` matches a field's value (case-insensitive, globs allowed), combined with
 * AND/OR/NOT. Also derives the tokens every matching event must contain, for bloom pruning.
 */
import { tokenize } from '../../storage/segment/tokenizer';
import type { SearchExpr } from '../syntax/ast';
import type { Value } from '../value';
import { valueAt } from './access';
import type { CompiledExpr } from './compiled';
import { globTokenMatcher, globValueMatcher, literalMatcher, type TextMatcher } from './text-match';
import { truthColumn } from './vectors';
import { compileLogical, compileNot } from './compile-expr';

const RAW = '_raw';

function textTest(field: string, matcher: TextMatcher, valueTest: ((value: Value) => boolean) | null): CompiledExpr {
  const cache = new WeakMap<string[], Uint8Array>();
  return {
    type: 'boolean',
    duration: false,
    constant: null,
    fields: new Set([field]),
    evaluate(batch, sel, n) {
      const column = batch.columns.get(field);
      const out = truthColumn(batch.rowCount);
      if (column === undefined) return out; // no such field: nothing matches (all false)
      const test = (value: Value): boolean =>
        value !== null && (valueTest !== null ? valueTest(value) : matcher.test(typeof value === 'string' ? value : String(value)));
      if (column.kind === 'dict') {
        let table = cache.get(column.dict);
        if (table === undefined) {
          table = new Uint8Array(column.dict.length);
          for (let code = 1; code < column.dict.length; code++) table[code] = test(column.dict[code]) ? 1 : 0;
          cache.set(column.dict, table);
        }
        for (let i = 0; i < n; i++) out.values[sel[i]] = table[column.codes[sel[i]]];
        return out;
      }
      if (column.kind === 'string' && valueTest === null) {
        const values = column.values;
        for (let i = 0; i < n; i++) {
          const row = sel[i];
          const text = values[row];
          out.values[row] = text !== null && matcher.test(text) ? 1 : 0;
        }
        return out;
      }
      for (let i = 0; i < n; i++) {
        const row = sel[i];
        out.values[row] = test(valueAt(column, row)) ? 1 : 0;
      }
      return out;
    },
  };
}

export function compileSearch(expr: SearchExpr, resolveField: (name: string) => string): CompiledExpr {
  switch (expr.kind) {
    case 'term':
      return textTest(RAW, expr.glob ? globTokenMatcher(expr.text) : literalMatcher(expr.text), null);
    case 'phrase':
      return textTest(RAW, literalMatcher(expr.text), null);
    case 'fieldmatch': {
      const field = resolveField(expr.field);
      const wanted = expr.value.toLowerCase();
      const matcher = expr.glob && !expr.quoted ? globValueMatcher(expr.value) : null;
      const equals = (value: Value): boolean => {
        const text = typeof value === 'string' ? value : String(value);
        return matcher !== null ? matcher.test(text) : text.toLowerCase() === wanted;
      };
      const test = expr.op === '=' ? equals : (value: Value) => !equals(value);
      return textTest(field, { test: () => false }, test);
    }
    case 'and':
    case 'or':
      return compileLogical(
        expr.kind,
        expr.operands.map((operand) => compileSearch(operand, resolveField)),
      );
    case 'not':
      return compileNot(compileSearch(expr.operand, resolveField));
  }
}

/** Lower-cased tokens every matching event must contain (terms and phrases under AND only). */
export function requiredTokens(expr: SearchExpr, resolveField: (name: string) => string): string[] {
  switch (expr.kind) {
    case 'term':
      return expr.glob ? [] : tokenize(expr.text);
    case 'phrase':
      return tokenize(expr.text);
    case 'fieldmatch': {
      if (expr.op !== '=' || (expr.glob && !expr.quoted)) return [];
      // A string equal to the value (case aside) has put the value's tokens in the bloom. Numbers
      // and booleans put none, and may match as text ("500" vs 500, "true" vs true): no pruning.
      const value = expr.value.trim().toLowerCase();
      if (value === 'true' || value === 'false' || (value !== '' && Number.isFinite(Number(value)))) return [];
      return tokenize(expr.value);
    }
    case 'and':
      return [...new Set(expr.operands.flatMap((operand) => requiredTokens(operand, resolveField)))];
    case 'or':
    case 'not':
      return [];
  }
}

/** The texts every matching event's `_raw` contains, as its terms and phrases match them (under AND only). */
export function requiredRawLiterals(expr: SearchExpr): string[] {
  switch (expr.kind) {
    case 'term':
      return expr.glob ? [] : [expr.text];
    case 'phrase':
      return [expr.text];
    case 'and':
      return [...new Set(expr.operands.flatMap(requiredRawLiterals))];
    case 'fieldmatch':
    case 'or':
    case 'not':
      return [];
  }
}
