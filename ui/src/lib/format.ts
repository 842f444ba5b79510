/** How values read in tables. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A number with thousands separators and at most two decimals. */
export function count(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** An ISO time or null as a person reads it. */
export function when(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return 'never';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
