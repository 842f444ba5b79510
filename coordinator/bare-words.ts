/**
 * Bare words compared with a field (`where level = error`): the language reads `error` as a field
 * name, which is right when the event has such a field and a silent "nothing matched" when the
 * user meant the string. The query service asks whether any event in range holds the field and,
 * when none does, says so in `meta.warnings` with the quoted form (docs/api.md, "Warnings").
 */
import type { Expr, FieldRef } from '../query/syntax';
import type { Query } from '../query/stages';

/** A bare field name on the value side of `=`, `!=` or `in (...)`, and the comparison it sits in. */
export interface BareWord {
  field: string;
  /** The field the word is compared with (`level` in `level = error`). */
  comparedWith: string;
  op: '=' | '!=' | 'in';
}

export interface QueryWarning {
  code: 'BARE_WORD_FIELD';
  message: string;
  hint: string;
}

/**
 * The bare words of the query's `where` stages that read an event field no earlier stage makes.
 * `text` is the query as sent: a name written in backticks is a field on purpose and is left out.
 */
export function bareWordsOf(query: Query, text: string): BareWord[] {
  const out: BareWord[] = [];
  const made = new Set<string>();
  for (const stage of query.stages) {
    switch (stage.kind) {
      case 'where':
        collect(stage.expr, text, made, out);
        break;
      case 'extend':
        for (const assignment of stage.assignments) made.add(assignment.name);
        break;
      case 'rename':
        for (const rename of stage.renames) made.add(rename.to.name);
        break;
      case 'parse':
      case 'stats':
      case 'top':
        // Their output fields are not known before the data: later stages are not checked.
        return out;
      default:
        break;
    }
  }
  return out;
}

function collect(expr: Expr, text: string, made: ReadonlySet<string>, out: BareWord[]): void {
  switch (expr.kind) {
    case 'logical':
      for (const operand of expr.operands) collect(operand, text, made, out);
      return;
    case 'not':
      collect(expr.operand, text, made, out);
      return;
    case 'binary':
      if ((expr.op === '=' || expr.op === '!=') && expr.left.kind === 'field' && isBare(expr.right, text, made)) {
        out.push({ field: expr.right.name, comparedWith: expr.left.name, op: expr.op });
      }
      return;
    case 'in':
      if (expr.operand.kind !== 'field') return;
      for (const item of expr.list) {
        if (isBare(item, text, made)) out.push({ field: item.name, comparedWith: expr.operand.name, op: 'in' });
      }
      return;
    default:
      return;
  }
}

function isBare(expr: Expr, text: string, made: ReadonlySet<string>): expr is FieldRef {
  return expr.kind === 'field' && text[expr.pos.offset] !== '`' && !made.has(expr.name);
}

/** The warning for a bare word no event in range has as a field. */
export function bareWordWarning(word: BareWord): QueryWarning {
  const quoted = JSON.stringify(word.field);
  const compared = word.op === 'in' ? `${word.comparedWith} in (... ${word.field} ...)` : `${word.comparedWith} ${word.op} ${word.field}`;
  const fixed = word.op === 'in' ? `${word.comparedWith} in (... ${quoted} ...)` : `${word.comparedWith} ${word.op} ${quoted}`;
  return {
    code: 'BARE_WORD_FIELD',
    message: `in \`${compared}\`, ${word.field} is read as a field name, and no event in range has a field ${word.field}`,
    hint: `to compare with the text, quote it: ${fixed}`,
  };
}
