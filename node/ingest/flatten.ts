/**
 * Flattening of JSON objects into event fields: nested objects become dotted names (`a.b.c`), arrays are
 * kept as their JSON text, null is absent, strings, numbers and booleans keep their type. A value that
 * cannot be kept exactly refuses the event (refusal.ts) rather than vanish.
 */
import type { FieldValue } from '../../storage/core/event';
import { hasField, isStorableFieldName, RESERVED_FIELD_NAMES } from './common';
import { invalid, nonFiniteNumber, type Refusal } from './refusal';

/** Below this depth a sub-object is stored as JSON text rather than expanded further. */
export const MAX_FLATTEN_DEPTH = 16;

export interface FlattenOptions {
  /** Keep a field that is already set (true: request-level values win over extracted ones). */
  keepExisting: boolean;
  /** Prefix for every name, with its trailing dot (`resource.`), or ''. */
  prefix?: string;
  /**
   * Refuse the event over an empty or reserved name instead of skipping it: for an object of fields
   * the client names itself (native and event-collector `fields`), whose text is in no `_raw`.
   */
  refuseReserved?: boolean;
}

/** JSON text of a value, or undefined when it cannot be serialized (too deep for JSON.stringify). */
export function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

/**
 * JSON text of an array or object stored as text under `name`, or the refusal when the text would
 * not hold it exactly: JSON.stringify writes a non-finite number as null, and throws past its depth.
 */
export function storedJsonText(v: unknown, name: string): string | Refusal {
  const text = jsonText(v);
  if (text === undefined) return invalid(`field '${name.slice(0, 100)}' is nested too deeply to store as JSON text`);
  if (text.includes('null') && holdsNonFiniteNumber(v)) return nonFiniteNumber(name);
  return text;
}

/** Whether a JSON value holds a non-finite number anywhere (an explicit stack: any depth). */
function holdsNonFiniteNumber(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'number') {
      if (v - v !== 0) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const key of Object.keys(v)) pending.push((v as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/**
 * A JSON scalar as a field value: undefined for null and non-scalars. A non-finite number (JSON
 * `1e400`) is returned as is: checkEvent refuses the event, naming the field.
 */
export function scalarField(v: unknown): FieldValue | undefined {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'number':
      return v;
    default:
      return undefined;
  }
}

/** Flattens `obj` into `fields`; returns the refusal of a value that cannot be stored exactly, else null. */
export function flattenInto(fields: Record<string, FieldValue>, obj: Record<string, unknown>, opts: FlattenOptions): Refusal | null {
  return walk(fields, obj, opts.prefix ?? '', 0, opts.keepExisting, opts.refuseReserved === true);
}

function walk(
  fields: Record<string, FieldValue>,
  obj: Record<string, unknown>,
  prefix: string,
  depth: number,
  keep: boolean,
  refuseReserved: boolean,
): Refusal | null {
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const v = obj[key];
    if (v === null || v === undefined) continue;
    const name = prefix === '' ? key : prefix + key;
    if (key === '' || !isStorableFieldName(name)) {
      if (refuseReserved) return reservedName(name);
      continue;
    }
    if (typeof v === 'object' && !Array.isArray(v) && depth + 1 < MAX_FLATTEN_DEPTH) {
      const refusal = walk(fields, v as Record<string, unknown>, name + '.', depth + 1, keep, refuseReserved);
      if (refusal !== null) return refusal;
      continue;
    }
    // A skipped name's value is never stored, so it cannot refuse the event.
    if (keep && hasField(fields, name)) continue;
    let value: FieldValue | undefined;
    if (typeof v === 'object') {
      const text = storedJsonText(v, name);
      if (typeof text !== 'string') return text;
      value = text;
    } else {
      value = scalarField(v);
    }
    if (value !== undefined) fields[name] = value;
  }
  return null;
}

/** Why an event whose client-named field is empty or reserved is refused. */
export function reservedName(name: string): Refusal {
  if (name === '' || name.endsWith('.'))
    return invalid(`a field name is empty${name === '' ? '' : ` (under '${name.slice(0, 100)}')`}: name every field`);
  return invalid(`field '${name}' uses a reserved name (${[...RESERVED_FIELD_NAMES].join(', ')}): rename it`);
}
