/**
 * Builds a decoded Column from plain row values, choosing the narrowest vector type. Used for
 * write-buffer reads (rows not yet in segments) and by tests.
 */
import type { Column } from './column';
import type { FieldValue } from './event';

export function columnFromValues(values: (FieldValue | null | undefined)[]): Column {
  const length = values.length;
  let strings = 0;
  let numbers = 0;
  let booleans = 0;
  for (let i = 0; i < length; i++) {
    const value = values[i];
    if (value === null || value === undefined) continue;
    if (typeof value === 'string') strings++;
    else if (typeof value === 'number') numbers++;
    else booleans++;
  }
  const present = strings + numbers + booleans;
  if (present === 0) return { kind: 'const', value: null, length };
  const hasNulls = present < length;
  if (numbers === present) {
    const out = new Float64Array(length);
    const nulls = hasNulls ? new Uint8Array(length) : null;
    let allIntegers = true;
    for (let i = 0; i < length; i++) {
      const value = values[i];
      if (typeof value === 'number') {
        out[i] = value;
        if (allIntegers && !Number.isInteger(value)) allIntegers = false;
      } else if (nulls !== null) nulls[i] = 1;
    }
    return { kind: 'number', values: out, nulls, allIntegers };
  }
  if (booleans === present) {
    const out = new Uint8Array(length);
    const nulls = hasNulls ? new Uint8Array(length) : null;
    for (let i = 0; i < length; i++) {
      const value = values[i];
      if (typeof value === 'boolean') out[i] = value ? 1 : 0;
      else if (nulls !== null) nulls[i] = 1;
    }
    return { kind: 'boolean', values: out, nulls };
  }
  if (strings === present) {
    return { kind: 'string', values: values.map((value) => (value === undefined ? null : (value as string | null))) };
  }
  return { kind: 'mixed', values: values.map((value) => (value === undefined ? null : value)) };
}
