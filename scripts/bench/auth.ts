/**
 * `npm run bench -- auth [--events N] [--batch N] [--concurrency N] [--runs N]`
 *
 * What checking API keys costs ingest: two server processes, one with auth off and one with auth
 * on (each request sends an ingest key's token), take the same bodies of generated events at the
 * same time, round after round (each after both flushed the last), so that whatever else the
 * machine does meets both alike. Prints per round each one's events/s and CPU per event (all its
 * threads, from /proc), then the medians and the median of the rounds' ratios (on / off). Run it with small batches
 * too (`--batch 100`): the check is per request, so small requests show its cost most. First, in
 * this process, what one check costs: a token's first verification (scrypt) and a remembered one,
 * which is what every later request pays, far below the noise of a loaded machine.
 */
import { Authenticator } from '../../node/auth/authenticator';
import { issueKey } from '../../node/auth/key-issue';
import { MetadataStore } from '../../node/metadata/store';
import { LocalMetadataWriter } from '../../node/metadata/writer';
import { bearer, makeKey } from '../../test/helpers/auth';
import { openTestEngine } from '../../test/helpers/engine';
import { request, TestServer } from '../../test/helpers/server';
import { EventGenerator } from './generate';
import { processCpuSeconds } from './process-cpu';

export interface AuthBenchOptions {
  events: number;
  batch: number;
  concurrency: number;
  runs: number;
}

const ROOT = 'auth bench root token';

function bodiesOf(count: number, batch: number): Buffer[] {
  const generator = new EventGenerator(42, Date.now() - 3 * 3600_000, (2 * 3600_000) / count);
  const bodies: Buffer[] = [];
  for (let produced = 0; produced < count; produced += batch) {
    const events = Array.from({ length: Math.min(batch, count - produced) }, () => generator.next());
    bodies.push(Buffer.from(JSON.stringify(events)));
  }
  return bodies;
}

/** Events/s acknowledged for every body, `concurrency` requests in flight. */
async function postAll(
  server: TestServer,
  bodies: readonly Buffer[],
  events: number,
  concurrency: number,
  headers: Record<string, string>,
) {
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const answer = await request(`${server.api}/ingest`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
      });
      if (answer.status === 503) {
        next--;
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (answer.status !== 200) throw new Error(`ingest answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return events / ((performance.now() - started) / 1000);
}

async function waitFlushed(server: TestServer, headers: Record<string, string>): Promise<void> {
  for (;;) {
    if ((await request(`${server.api}/stats`, { headers })).body.data.buffered_events === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Milliseconds of a token's first check, and microseconds of a remembered one (median of 20 passes of 10,000). */
export async function verificationCost(): Promise<{ firstMs: number; rememberedMicros: number }> {
  const engine = await openTestEngine();
  try {
    const store = await MetadataStore.open(engine.records('metadata'));
    const { token } = await issueKey(new LocalMetadataWriter(store), {
      name: 'bench',
      scope: 'ingest',
      description: null,
      expiresAt: null,
    });
    const authenticator = new Authenticator(store);
    const started = performance.now();
    if ((await authenticator.verify(token)) === null) throw new Error('the bench key was not verified');
    const firstMs = performance.now() - started;
    const passes: number[] = [];
    for (let pass = 0; pass < 20; pass++) {
      const passStarted = performance.now();
      for (let i = 0; i < 10_000; i++) await authenticator.verify(token);
      passes.push(((performance.now() - passStarted) * 1000) / 10_000);
    }
    return { firstMs, rememberedMicros: median(passes) };
  } finally {
    await engine.close();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runAuthBench(options: AuthBenchOptions): Promise<void> {
  const cost = await verificationCost();
  console.log(`a token's first check (scrypt): ${cost.firstMs.toFixed(1)} ms; a remembered token: ${cost.rememberedMicros.toFixed(2)} µs`);
  const bodies = bodiesOf(options.events, options.batch);
  const off = await TestServer.start();
  const on = await TestServer.start({ set: { 'auth.enabled': true }, env: { TRAWL_ROOT_TOKEN: ROOT } });
  try {
    // The key's scope (ingest) is what a shipper holds; /stats needs query, so the waits use the root key.
    const ingestKey = bearer((await makeKey(on.api, ROOT, { name: 'bench', scope: 'ingest' })).token);
    const setups = [
      { name: 'auth off', server: off, headers: {}, admin: {} },
      { name: 'auth on', server: on, headers: ingestKey, admin: bearer(ROOT) },
    ] as const;
    const rateRatios: number[] = [];
    const cpuRatios: number[] = [];
    const cpu: Record<string, number[]> = { 'auth off': [], 'auth on': [] };
    for (let round = 0; round < options.runs; round++) {
      await Promise.all(setups.map((setup) => waitFlushed(setup.server, setup.admin)));
      // Both at once, the same bodies: whatever else the machine does meets both alike.
      const measured = await Promise.all(
        setups.map(async (setup) => {
          const cpuBefore = processCpuSeconds(setup.server.process.pid);
          const rate = await postAll(setup.server, bodies, options.events, options.concurrency, setup.headers);
          return { rate, cpuMicros: ((processCpuSeconds(setup.server.process.pid) - cpuBefore) * 1e6) / options.events };
        }),
      );
      const [offRound, onRound] = measured as [{ rate: number; cpuMicros: number }, { rate: number; cpuMicros: number }];
      rateRatios.push(onRound.rate / offRound.rate);
      cpuRatios.push(onRound.cpuMicros / offRound.cpuMicros);
      cpu['auth off']!.push(offRound.cpuMicros);
      cpu['auth on']!.push(onRound.cpuMicros);
      console.log(
        `round ${round + 1}: off ${offRound.rate.toFixed(0)} events/s, ${offRound.cpuMicros.toFixed(2)} µs CPU per event; ` +
          `on ${onRound.rate.toFixed(0)} events/s, ${onRound.cpuMicros.toFixed(2)} µs`,
      );
    }
    console.log(
      `\nauth benchmark: ${options.events} events, batches of ${options.batch}, ${options.concurrency} in flight per server, ${options.runs} rounds`,
    );
    console.log(`| measure | value |\n|---|---|`);
    console.log(`| median server CPU per event, auth off, µs | ${median(cpu['auth off']!).toFixed(2)} |`);
    console.log(`| median server CPU per event, auth on, µs | ${median(cpu['auth on']!).toFixed(2)} |`);
    console.log(`| median of the rounds' ratios on / off, events/s | ${median(rateRatios).toFixed(3)} |`);
    console.log(`| median of the rounds' ratios on / off, CPU per event | ${median(cpuRatios).toFixed(3)} |`);
    console.log(`| a token's first check (scrypt), ms | ${cost.firstMs.toFixed(1)} |`);
    console.log(`| a remembered token's check, µs per request | ${cost.rememberedMicros.toFixed(2)} |`);
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}
