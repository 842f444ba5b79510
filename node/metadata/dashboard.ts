/**
 * A dashboard (docs/api.md "Dashboards"): a name, panels on a 12-column grid, and variables that
 * panel queries reference as `$name`. Every panel query must parse with its variables standing for
 * any text, as it will run when a value is chosen; a `$name` no variable declares is refused, since
 * nothing could ever fill it in.
 */
import { checkQuery, variableNames } from '../../query/stages';
import { refuseInternalIndexes } from '../../query/stages/internal-indexes';
import { validationError } from '../core/errors';
import { parseTimeBound } from '../core/time-bound';

export const PANEL_TYPES = ['timechart', 'table', 'bar', 'line', 'area', 'stat', 'pie'] as const;
export const VARIABLE_TYPES = ['field_values', 'custom'] as const;
/** Where a panel's time range starts when it leaves `from` out. */
export const DEFAULT_PANEL_FROM = '-1h';
export const GRID_COLUMNS = 12;

const DASHBOARD_FIELDS = ['name', 'panels', 'variables'];
const PANEL_FIELDS = ['id', 'title', 'type', 'q', 'from', 'position'];
const POSITION_FIELDS = ['x', 'y', 'w', 'h'];
const VARIABLE_FIELDS = ['name', 'type', 'field', 'default', 'label', 'values'];
/** A variable's name as panel queries reference it (`$host`). */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Fields = Readonly<Record<string, unknown>>;

function objectAt(value: unknown, path: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validationError(`${path} must be an object`);
  return value as Fields;
}

function onlyFields(fields: Fields, accepted: readonly string[], path: string): void {
  for (const key of Object.keys(fields)) {
    if (!accepted.includes(key)) {
      throw validationError(`${path === '' ? '' : `${path}.`}${key} is not accepted (accepted: ${accepted.join(', ')})`);
    }
  }
}

function text(fields: Fields, name: string, path: string, required: boolean): string | undefined {
  const value = fields[name];
  const at = path === '' ? name : `${path}.${name}`;
  if (value === undefined || value === null) {
    if (required) throw validationError(`${at} is required`);
    return undefined;
  }
  if (typeof value !== 'string' || (required && value.trim() === '')) throw validationError(`${at} must be a non-empty string`);
  return value;
}

function gridInteger(fields: Fields, name: string, path: string, min: number, max: number): number {
  const value = fields[name];
  const at = `${path}.${name}`;
  if (value === undefined) throw validationError(`${at} is required`);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw validationError(`${at} must be ${range}`);
  }
  return value;
}

function position(value: unknown, path: string): Record<string, number> {
  const fields = objectAt(value, path);
  onlyFields(fields, POSITION_FIELDS, path);
  return {
    x: gridInteger(fields, 'x', path, 0, GRID_COLUMNS - 1),
    y: gridInteger(fields, 'y', path, 0, Number.MAX_SAFE_INTEGER),
    w: gridInteger(fields, 'w', path, 1, GRID_COLUMNS),
    h: gridInteger(fields, 'h', path, 0, Number.MAX_SAFE_INTEGER),
  };
}

function variable(value: unknown, path: string): Record<string, unknown> {
  const fields = objectAt(value, path);
  onlyFields(fields, VARIABLE_FIELDS, path);
  const name = text(fields, 'name', path, true)!;
  if (!VARIABLE_NAME.test(name))
    throw validationError(`${path}.name must be letters, digits and _ (not starting with a digit), as $${name} is written in queries`);
  const type = text(fields, 'type', path, true)!;
  if (!(VARIABLE_TYPES as readonly string[]).includes(type))
    throw validationError(`${path}.type must be one of ${VARIABLE_TYPES.join(', ')}`);
  const record: Record<string, unknown> = { name, type, field: text(fields, 'field', path, true) };
  for (const optional of ['default', 'label']) {
    const given = text(fields, optional, path, false);
    if (given !== undefined) record[optional] = given;
  }
  const values = fields.values;
  if (values !== undefined && values !== null) {
    if (type !== 'custom')
      throw validationError(`${path}.values is only for a custom variable (field_values variables take theirs from the field)`);
    if (!Array.isArray(values) || values.some((item) => typeof item !== 'string'))
      throw validationError(`${path}.values must be an array of strings`);
    record.values = [...(values as string[])];
  }
  return record;
}

function panel(value: unknown, path: string, declared: ReadonlySet<string>, maxQueryLength: number): Record<string, unknown> {
  const fields = objectAt(value, path);
  onlyFields(fields, PANEL_FIELDS, path);
  const id = text(fields, 'id', path, true)!;
  const title = text(fields, 'title', path, true)!;
  const type = text(fields, 'type', path, true)!;
  if (!(PANEL_TYPES as readonly string[]).includes(type)) throw validationError(`${path}.type must be one of ${PANEL_TYPES.join(', ')}`);
  const q = text(fields, 'q', path, true)!;
  if (q.length > maxQueryLength)
    throw validationError(`${path}.q is ${q.length} characters long; query.max_query_length is ${maxQueryLength}`);
  const used = variableNames(q);
  const undeclared = used.find((name) => !declared.has(name));
  if (undeclared !== undefined) throw validationError(`${path}.q uses $${undeclared}, which no entry of variables declares`);
  const checked = checkQuery(q, Object.fromEntries(used.map((name) => [name, ''])));
  if (!checked.ok) throw validationError(`${path}.q: ${checked.errors[0]!.message}`);
  try {
    refuseInternalIndexes(checked.query);
  } catch (error) {
    throw validationError(`${path}.q: ${(error as Error).message}`);
  }
  const from = text(fields, 'from', path, false) ?? DEFAULT_PANEL_FROM;
  try {
    parseTimeBound('from', from, Date.now());
  } catch (error) {
    throw validationError(`${path}.from: ${(error as Error).message}`);
  }
  if (fields.position === undefined) throw validationError(`${path}.position is required`);
  return { id, title, type, q, from, position: position(fields.position, `${path}.position`) };
}

/**
 * The dashboard to keep from a client's fields, with panel defaults filled in. Throws
 * VALIDATION_ERROR naming the field by its path (`panels[1].position.x`).
 */
export function dashboardRecord(fields: Fields, maxQueryLength = Number.MAX_SAFE_INTEGER): Record<string, unknown> {
  onlyFields(fields, DASHBOARD_FIELDS, '');
  const name = text(fields, 'name', '', true)!;
  const rawVariables = fields.variables ?? [];
  if (!Array.isArray(rawVariables)) throw validationError('variables must be an array');
  const variables = rawVariables.map((item, i) => variable(item, `variables[${i}]`));
  const declared = new Set<string>();
  variables.forEach((item, i) => {
    const variableName = item.name as string;
    if (declared.has(variableName)) throw validationError(`variables[${i}].name "${variableName}" is declared twice`);
    declared.add(variableName);
  });
  if (fields.panels === undefined) throw validationError('panels is required');
  if (!Array.isArray(fields.panels)) throw validationError('panels must be an array');
  const panels = fields.panels.map((item, i) => panel(item, `panels[${i}]`, declared, maxQueryLength));
  const ids = new Set<string>();
  panels.forEach((item, i) => {
    const id = item.id as string;
    if (ids.has(id)) throw validationError(`panels[${i}].id "${id}" is used by another panel: panel ids are unique within a dashboard`);
    ids.add(id);
  });
  const record: Record<string, unknown> = { name, panels };
  if (fields.variables !== undefined && fields.variables !== null) record.variables = variables;
  return record;
}

/** The list form: no panels or variables, their count instead. */
export function dashboardListItem(record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const panels = record.panels as unknown[];
  return { id: record.id, name: record.name, created_at: record.created_at, updated_at: record.updated_at, panels_count: panels.length };
}
