/**
 * `npm run bench -- ui [--events N] [--runs N]`
 *
 * The web UI's first screen: loads N generated events (default 10,000,000, over the last 6 hours)
 * into a real server, then opens the search page in Chromium (Debian's, through playwright-core)
 * `runs` times, each in a fresh browser context (nothing cached), and reports the median time from
 * navigation start to: the page's script running (the editor drawn), the first results shown (the
 * default query, `from *` over the last hour, 1,000 rows), and the histogram drawn.
 */
import { launchBrowser } from '../../test/helpers/browser';
import { request, TestServer } from '../../test/helpers/server';
import { load, median, waitSettled } from './query';

export interface UiBenchOptions {
  events: number;
  runs: number;
}

/** Runs in the page before its own script: the time (ms since navigation start) each milestone shows. */
const MILESTONES = `
  window.__milestones = {};
  new MutationObserver(() => {
    const seen = window.__milestones;
    const at = performance.now();
    if (seen.editor === undefined && document.querySelector('.cm-content')) seen.editor = at;
    const count = document.querySelector('[data-testid=result-count]');
    if (seen.results === undefined && count && /\\d[\\d,]* (events|rows)/.test(count.textContent || '')) seen.results = at;
    if (seen.histogram === undefined && document.querySelector('[data-testid=histogram] canvas')) seen.histogram = at;
  }).observe(document, { childList: true, subtree: true, characterData: true });
`;

interface Milestones {
  editor: number;
  results: number;
  histogram: number;
}

export async function runUiBench(options: UiBenchOptions): Promise<void> {
  const server = await TestServer.start({ set: { 'storage.compaction_interval': '5s' } });
  const browser = await launchBrowser();
  try {
    console.log(`loading ${options.events} events ...`);
    const loaded = await load(server, options, null);
    console.log(`loaded in ${loaded.seconds.toFixed(0)} s; waiting for flush and compaction`);
    await waitSettled(server);
    const runs: Milestones[] = [];
    for (let run = -1; run < options.runs; run++) {
      await request(`${server.api}/cache`, { method: 'DELETE' });
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.addInitScript(MILESTONES);
      await page.goto(`${server.url}/#/search`);
      await page.waitForFunction('window.__milestones.results !== undefined && window.__milestones.histogram !== undefined', undefined, {
        timeout: 60_000,
      });
      const seen = (await page.evaluate('window.__milestones')) as Milestones;
      const shown = await page.getByTestId('result-count').innerText();
      await context.close();
      // The first run warms the server's code paths (the JIT) and is not counted.
      if (run >= 0) runs.push(seen);
      console.log(
        `run ${run < 0 ? 'warm-up' : run + 1}: script ${seen.editor.toFixed(0)} ms, results ${seen.results.toFixed(0)} ms, histogram ${seen.histogram.toFixed(0)} ms (${shown})`,
      );
    }
    const at = (key: keyof Milestones) => median(runs.map((each) => each[key])).toFixed(0);
    console.log(`\nUI first screen: ${options.events} events on one node, Chromium, median of ${options.runs} runs, empty result cache`);
    console.log('| milestone (from navigation start) | ms |');
    console.log('|---|---:|');
    console.log(`| the page's script ran (query editor drawn) | ${at('editor')} |`);
    console.log(`| first results shown (\`from *\`, last hour, 1,000 rows) | ${at('results')} |`);
    console.log(`| histogram drawn | ${at('histogram')} |`);
  } finally {
    await browser.close();
    await server.stop();
  }
}
