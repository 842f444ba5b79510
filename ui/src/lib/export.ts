/** Export of a query's events as NDJSON (POST /query/stream), saved as a file by the browser. */
import { call } from './api';
import type { TimeRange } from './time-range';

export async function exportNdjson(q: string, range: TimeRange): Promise<number> {
  const response = await call('/query/stream', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ q, from: range.from, to: range.to }),
  });
  const lines = (await response.text()).split('\n').filter((line) => line !== '');
  const last = lines[lines.length - 1] ?? '';
  if (last.startsWith('{"__error"')) throw new Error(`the export failed: ${last}`);
  // The stream's last line is its summary (`__meta`), not an event.
  const events = last.startsWith('{"__meta"') ? lines.slice(0, -1) : lines;
  const file = new Blob(
    events.map((line) => line + '\n'),
    { type: 'application/x-ndjson' },
  );
  const link = document.createElement('a');
  link.href = URL.createObjectURL(file);
  link.download = `trawl-export-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  return events.length;
}
