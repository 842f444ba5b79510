/**
 * A saved query (docs/api.md "Saved query"): a name, the query text and an optional default start of the
 * time range. The text must parse and plan as it will run, so a saved search is always runnable.
 * Its `$variables` get their values only when it runs; substitution turns any value into a string
 * literal, so checking each one as a string literal is the check the run will make.
 */
import { checkQuery, variableNames } from '../../query/stages';
import { refuseInternalIndexes } from '../../query/stages/internal-indexes';
import { validationError } from '../core/errors';
import { parseTimeBound } from '../core/time-bound';

export const SAVED_QUERY_FIELDS: readonly string[] = ['name', 'q', 'from'];

function requiredText(fields: Readonly<Record<string, unknown>>, name: string, what: string): string {
  const value = fields[name];
  if (value === undefined) throw validationError(`${name} is required`);
  if (typeof value !== 'string' || value.trim() === '') throw validationError(`${name} must be a non-empty string${what}`);
  return value;
}

/**
 * The saved query to keep from a client's fields: `name`, `q` and, when given, `from` (null is
 * the same as absent). Throws VALIDATION_ERROR naming the field, or the query's first QueryError.
 */
export function savedQueryRecord(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  for (const key of Object.keys(fields)) {
    if (!SAVED_QUERY_FIELDS.includes(key))
      throw validationError(`field "${key}" is not accepted (accepted: ${SAVED_QUERY_FIELDS.join(', ')})`);
  }
  const name = requiredText(fields, 'name', '');
  const q = requiredText(fields, 'q', ': the query text');
  const checked = checkQuery(q, Object.fromEntries(variableNames(q).map((variable) => [variable, ''])));
  if (!checked.ok) throw checked.errors[0]!;
  refuseInternalIndexes(checked.query);
  const record: Record<string, unknown> = { name, q };
  const from = fields.from;
  if (from !== undefined && from !== null) {
    if (typeof from !== 'string') throw validationError('from must be a string: a relative or ISO 8601 time');
    parseTimeBound('from', from, Date.now());
    record.from = from;
  }
  return record;
}
