/** An event time in microseconds as ISO 8601 text, null for none. */
export const isoOfMicros = (micros: number | null): string | null =>
  micros === null ? null : new Date(Math.floor(micros / 1000)).toISOString();
