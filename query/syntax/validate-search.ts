// Checks a search expression after parsing and puts it in final form: flattens AND/OR chains,
// reports field matches that are not field names (E001) and globs too large for RE2 (E008).

import type * as A from './ast';
import { invalidSearchFields } from './builders';
import { QueryError, show } from './errors';
import { quote } from './print';
import { patternError } from './regex';
import { inBackticks } from './suggest';
import { tokenGlobRegex, valueGlobRegex, wildcardRefusal, type WildcardRegex } from './wildcards';
import { MAX_EXPR_DEPTH } from './validate-expr';

export function checkSearch(e: A.SearchExpr, errors: QueryError[], depth = 0): A.SearchExpr {
  if (depth > MAX_EXPR_DEPTH) {
    errors.push(
      new QueryError(
        'E001',
        `search expression nested more than ${MAX_EXPR_DEPTH} levels deep`,
        e.pos,
        `nest at most ${MAX_EXPR_DEPTH} levels`,
      ),
    );
    return { kind: 'term', text: '', glob: false, pos: e.pos };
  }
  switch (e.kind) {
    case 'and':
    case 'or': {
      // Flatten the chain without recursing along it (implied AND chains can be very long).
      const out: A.SearchExpr[] = [];
      const stack: A.SearchExpr[] = [e];
      while (stack.length > 0) {
        const x = stack.pop()!;
        if (x.kind === e.kind) for (let i = x.operands.length - 1; i >= 0; i--) stack.push(x.operands[i]!);
        else out.push(checkSearch(x, errors, depth + 1));
      }
      e.operands = out;
      return e;
    }
    case 'not':
      e.operand = checkSearch(e.operand, errors, depth + 1);
      return e;
    case 'fieldmatch':
      if (invalidSearchFields.has(e)) {
        const cmp = /^(.*?)([<>])$/.exec(e.field);
        const suggestion = cmp
          ? `where ${cmp[1]} ${cmp[2]}${e.op === '=' ? '=' : ''} ${e.value}`
          : `${inBackticks(e.field)}${e.op}${e.quoted ? quote(e.value) : e.value}`;
        errors.push(
          new QueryError('E001', `${show(e.field)} is not a field name${cmp ? '; compare numbers with where' : ''}`, e.pos, suggestion),
        );
      } else if (e.glob && !e.quoted) {
        checkGlob(valueGlobRegex(e.value), e.pos, errors);
      }
      return e;
    case 'term':
      if (e.glob) checkGlob(tokenGlobRegex(e.text), e.pos, errors);
      return e;
    default:
      return e;
  }
}

function checkGlob(regex: WildcardRegex, pos: A.Pos, errors: QueryError[]): void {
  const refusal = wildcardRefusal(regex);
  if (refusal !== null) errors.push(patternError('glob', refusal, pos));
}
