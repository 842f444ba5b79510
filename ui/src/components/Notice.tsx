/** A message in place of a page's content: a missing endpoint, an error, an empty state. */
import { MissingEndpoint } from '../lib/api';

export function problemText(error: unknown, feature: string): string {
  if (error instanceof MissingEndpoint) return `This server has no ${feature}.`;
  return error instanceof Error ? error.message : String(error);
}

export function Notice({ text, kind = 'info' }: { text: string; kind?: 'info' | 'error' }) {
  return (
    <p class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {text}
    </p>
  );
}
