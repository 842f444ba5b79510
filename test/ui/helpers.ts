/** What the UI tests do as a person would: type a query into the editor and run it. */
import type { Page } from 'playwright-core';

/** Replaces the editor's text by typing, then runs it with Ctrl+Enter. */
export async function typeQuery(page: Page, text: string): Promise<void> {
  const editor = page.locator('.cm-content');
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
  await page.keyboard.press('Control+Enter');
}

/** Events for POST /ingest, oldest last: one every `stepSeconds` back from `newest`. */
export interface SampleEvent {
  event: string;
  time: number;
  host: string;
  index: string;
  fields: { status: number; level: string };
}

export function sampleEvents(count: number, newestSeconds: number, stepSeconds: number, index = 'main'): SampleEvent[] {
  const statuses = [200, 200, 404, 500];
  return Array.from({ length: count }, (_, i) => {
    const status = statuses[i % statuses.length]!;
    const host = `web-${(i % 3) + 1}`;
    return {
      event: `GET /item/${i} ${status} ${host}`,
      time: newestSeconds - i * stepSeconds,
      host,
      index,
      fields: { status, level: status >= 500 ? 'error' : 'info' },
    };
  });
}
