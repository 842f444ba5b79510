/** A time range as the API takes it: relative (`-1h`, `now`) or absolute (ISO 8601) bounds. */
export interface TimeRange {
  from: string;
  to: string;
}

export const PRESETS: readonly { label: string; from: string }[] = [
  { label: 'Last 5 minutes', from: '-5m' },
  { label: 'Last 15 minutes', from: '-15m' },
  { label: 'Last hour', from: '-1h' },
  { label: 'Last 4 hours', from: '-4h' },
  { label: 'Last 24 hours', from: '-24h' },
  { label: 'Last 7 days', from: '-7d' },
  { label: 'Last 30 days', from: '-30d' },
];

export const DEFAULT_RANGE: TimeRange = { from: '-1h', to: 'now' };

const RELATIVE = /^(now|-\d+(ms|s|m|h|d|w))$/;

/** Whether the API accepts this bound: relative or an ISO 8601 instant. */
export function isValidBound(text: string): boolean {
  return RELATIVE.test(text) || (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text)));
}

/** A bucket time as an ISO 8601 bound. */
export function isoBound(ms: number): string {
  return new Date(ms).toISOString();
}
