/**
 * Each node's resident memory (VmRSS of /proc/<pid>/status) and CPU over the run, sampled every few
 * seconds, and the judgement on memory: a node whose RSS passes a generous bound, or whose one
 * process keeps growing through a long life, fails.
 */
import fs from 'fs';
import { performance } from 'perf_hooks';
import type { SoakNode } from './fleet';

export interface RssSample {
  /** Seconds into the run. */
  atSeconds: number;
  pid: number;
  mb: number;
}

/** VmRSS in MB; null when the process is gone. */
export function residentMb(pid: number | undefined): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) / 1024;
  } catch {
    return null;
  }
}

export class ResourceWatch {
  readonly samples = new Map<string, RssSample[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nodes: readonly SoakNode[],
    private readonly originMs: number,
  ) {
    for (const node of nodes) this.samples.set(node.id, []);
  }

  start(everyMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }

  private sample(): void {
    const atSeconds = (performance.now() - this.originMs) / 1000;
    for (const node of this.nodes) {
      node.sampleCpu();
      const mb = node.running ? residentMb(node.pid) : null;
      if (mb !== null) this.samples.get(node.id)!.push({ atSeconds, pid: node.pid!, mb });
    }
  }
}

export interface RssBounds {
  /** No sample may pass this. */
  limitMb: number;
  /** One process living at least `minLifeSeconds` may not rise through all three thirds of its life by more than this in all (medians of each third). */
  growthMb: number;
  minLifeSeconds: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The failures of one node's samples against the bounds. */
export function judgeRss(node: string, samples: readonly RssSample[], bounds: RssBounds): string[] {
  const failures: string[] = [];
  const peak = samples.reduce((most, sample) => Math.max(most, sample.mb), 0);
  if (peak > bounds.limitMb) failures.push(`${node}: RSS reached ${peak.toFixed(0)} MB, over the ${bounds.limitMb} MB bound`);
  const lives = new Map<number, RssSample[]>();
  for (const sample of samples) lives.set(sample.pid, [...(lives.get(sample.pid) ?? []), sample]);
  for (const [pid, life] of lives) {
    if (life.length < 6 || life[life.length - 1]!.atSeconds - life[0]!.atSeconds < bounds.minLifeSeconds) continue;
    const third = Math.floor(life.length / 3);
    const [first, middle, last] = [life.slice(0, third), life.slice(third, -third), life.slice(-third)].map((part) =>
      median(part.map((sample) => sample.mb)),
    ) as [number, number, number];
    // Caches fill and level off; a leak keeps rising through every third of the life.
    if (middle > first && last > middle && last - first > bounds.growthMb) {
      failures.push(
        `${node} (pid ${pid}): RSS rose through one life from ${first.toFixed(0)} to ${middle.toFixed(0)} to ${last.toFixed(0)} MB (medians of its thirds), more than ${bounds.growthMb} MB`,
      );
    }
  }
  return failures;
}

/** The samples as one line: the highest RSS of each `spanSeconds` from the first sample, in MB (`-`: the node was down all along). */
export function rssSeries(samples: readonly RssSample[], spanSeconds: number): string {
  const perSpan: number[] = [];
  for (const sample of samples) {
    const span = Math.floor((sample.atSeconds - samples[0]!.atSeconds) / spanSeconds);
    perSpan[span] = Math.max(perSpan[span] ?? 0, sample.mb);
  }
  return Array.from(perSpan, (mb) => (mb === undefined ? '-' : mb.toFixed(0))).join(' ');
}
