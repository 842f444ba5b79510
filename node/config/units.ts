/**
 * Durations (`500ms`, `30s`, `5m`, `1h`, `7d`, `2w`, `1y`) and sizes (`512`, `64kb`, `100mb`, `4gb`)
 * as config values and query parameters use them.
 */

const DURATION_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|y)$/i;

/** Milliseconds of a duration string, or null when it is not one. A bare number is seconds. */
export function parseDurationMs(text: string | number): number | null {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text * 1000 : null;
  const trimmed = text.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const match = DURATION_PATTERN.exec(trimmed);
  if (match === null) return null;
  return Math.round(Number(match[1]) * DURATION_UNITS_MS[match[2].toLowerCase()]);
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  k: 1024,
  mb: 1024 ** 2,
  m: 1024 ** 2,
  gb: 1024 ** 3,
  g: 1024 ** 3,
  tb: 1024 ** 4,
  t: 1024 ** 4,
};

const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(b|kb?|mb?|gb?|tb?)?$/i;

/** Bytes of a size string (`64mb`) or number, or null when it is not one. */
export function parseSizeBytes(text: string | number): number | null {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.floor(text) : null;
  const match = SIZE_PATTERN.exec(text.trim());
  if (match === null) return null;
  const unit = (match[2] ?? 'b').toLowerCase();
  return Math.floor(Number(match[1]) * SIZE_UNITS[unit]);
}

export function formatDurationMs(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = DURATION_UNITS_MS[unit];
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
