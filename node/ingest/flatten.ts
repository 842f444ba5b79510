/**
 * Flattening of JSON objects into event fields: nested objects become dotted names (`a.b.c`), arrays are
 * kept as their JSON text, null is absent, strings, finite numbers and booleans keep their type.
 */
import type { FieldValue } from '../../storage/event';
import { hasField, RESERVED_FIELD_NAMES } from './common';

/** Below this depth a sub-object is stored as JSON text rather than expanded further. */
export const MAX_FLATTEN_DEPTH = 16;
/** Fields per event; keys beyond it are dropped (a runaway document would otherwise create a column per key). */
export const MAX_FIELDS_PER_EVENT = 1000;

export interface FlattenOptions {
  /** Keep a field that is already set (true: request-level values win over extracted ones). */
  keepExisting: boolean;
  /** Prefix for every name, with its trailing dot (`resource.`), or ''. */
  prefix?: string;
}

/** JSON text of a value, or undefined when it cannot be serialized (too deep for JSON.stringify). */
export function jsonText(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

/** A JSON scalar as a field value: undefined for null, non-finite numbers and non-scalars. */
export function scalarField(v: unknown): FieldValue | undefined {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : undefined;
    default:
      return undefined;
  }
}

export function flattenInto(
  fields: Record<string, FieldValue>,
  obj: Record<string, unknown>,
  opts: FlattenOptions,
): void {
  let count = 0;
  for (const k in fields) if (Object.prototype.hasOwnProperty.call(fields, k)) count++;
  const state = { count, keep: opts.keepExisting };
  walk(fields, obj, opts.prefix ?? '', 0, state);
}

function walk(
  fields: Record<string, FieldValue>,
  obj: Record<string, unknown>,
  prefix: string,
  depth: number,
  state: { count: number; keep: boolean },
): void {
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key) || key === '') continue;
    const v = obj[key];
    if (v === null || v === undefined) continue;
    const name = prefix === '' ? key : prefix + key;
    let value: FieldValue | undefined;
    if (typeof v === 'object') {
      if (!Array.isArray(v) && depth + 1 < MAX_FLATTEN_DEPTH) {
        walk(fields, v as Record<string, unknown>, name + '.', depth + 1, state);
        continue;
      }
      value = jsonText(v);
    } else {
      value = scalarField(v);
    }
    if (value === undefined || RESERVED_FIELD_NAMES.has(name)) continue;
    const exists = hasField(fields, name);
    if (exists && state.keep) continue;
    if (!exists) {
      if (state.count >= MAX_FIELDS_PER_EVENT) continue;
      state.count++;
    }
    fields[name] = value;
  }
}
