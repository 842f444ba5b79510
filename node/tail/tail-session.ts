/**
 * One live tail session (docs/api.md "Live tail"): catchup, then live. Its sources listen before
 * the catchup query starts, so no event falls between the two; live rows that arrive meanwhile
 * wait (bounded) and go out after `catchup_done`, less those the catchup sent already
 * (catchup-overlap.ts). Live rows then go out as they come, through the stages from the first
 * `head` on; a heartbeat every `tail.heartbeat_interval`; the session ends when a `head` is
 * full, at `tail.max_session_duration`, when the server stops, or when the client leaves.
 */
import { LiveFinish } from '../../query/exec/live-pipeline';
import type { Row } from '../../query/exec/rows';
import { CatchupOverlap } from './catchup-overlap';
import type { LiveHandlers, LiveQuery, LiveSource, LiveSourceFactory } from './live-source';
import type { SseStream } from './sse-stream';

/** Live rows kept while the catchup runs; beyond them rows are dropped and counted. */
export const MAX_WAITING_ROWS = 100_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Error events kept until the client's stream opens. */
const MAX_WAITING_PROBLEMS = 100;

export interface TailSessionOptions {
  query: LiveQuery;
  sources: readonly LiveSourceFactory[];
  /** `tail.heartbeat_interval` as it is now (read before each heartbeat). */
  heartbeatIntervalMs: () => number;
  maxSessionDurationMs: number;
  /** Called once when the session ends, whatever ended it. */
  onEnd: (session: TailSession) => void;
}

export class TailSession {
  private phase: 'catchup' | 'live' | 'ended' = 'catchup';
  private stream: SseStream | null = null;
  private waiting: Row[] = [];
  private waitingDropped = 0;
  /** Matches the sources dropped for this session. */
  private sourceDropped = 0;
  private readonly finish: LiveFinish;
  private readonly sources: LiveSource[];
  private heartbeat: NodeJS.Timeout | null = null;
  /** What the sources reported before the client's stream opened. */
  private readonly problems: { code: string; message: string }[] = [];
  private readonly deadline: NodeJS.Timeout;

  constructor(private readonly options: TailSessionOptions) {
    this.finish = new LiveFinish(options.query.plan);
    const handlers: LiveHandlers = {
      rows: (rows) => this.received(rows),
      dropped: (count) => (this.sourceDropped += count),
      problem: (code, message) => this.problem(code, message),
    };
    this.sources = options.sources.map((source) => source(options.query, handlers));
    // A timer longer than 2^31-1 ms would fire at once: such a session runs for that long (24.8 days) at most.
    this.deadline = setTimeout(() => this.end(), Math.min(options.maxSessionDurationMs, MAX_TIMER_MS));
  }

  /** Resolves once every source listens. */
  async ready(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.ready));
  }

  /** Live results dropped for this session: the client fell behind, or its sources did. */
  get dropped(): number {
    return (this.stream?.dropped ?? 0) + this.waitingDropped + this.sourceDropped;
  }

  get ended(): boolean {
    return this.phase === 'ended';
  }

  /** Starts writing to the client (what its sources reported so far first); the catchup's results go out once `catchupDone` has them. */
  attach(stream: SseStream): void {
    this.stream = stream;
    for (const problem of this.problems.splice(0)) stream.send('error', problem);
  }

  /** The catchup's events, oldest first: sent, then `catchup_done`, then what waited. */
  catchupDone(events: readonly Row[]): void {
    const stream = this.stream;
    if (this.phase !== 'catchup' || stream === null) return;
    for (const event of events) stream.send('result', event);
    stream.send('catchup_done', { count: events.length });
    this.phase = 'live';
    const waited = this.waiting;
    this.waiting = [];
    this.deliver(new CatchupOverlap(events).withoutSent(this.finished(waited)));
    // A `head` the waiting rows filled has ended the session.
    if (this.phase === 'live') this.scheduleHeartbeat();
  }

  /** An error event the session ends with (the catchup failed). */
  fail(code: string, message: string): void {
    this.stream?.send('error', { code, message });
    this.end();
  }

  end(): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    clearTimeout(this.deadline);
    if (this.heartbeat !== null) clearTimeout(this.heartbeat);
    for (const source of this.sources) source.close();
    this.waiting = [];
    this.stream?.end();
    this.options.onEnd(this);
  }

  private problem(code: string, message: string): void {
    if (this.stream !== null) this.stream.send('error', { code, message });
    else if (this.problems.length < MAX_WAITING_PROBLEMS) this.problems.push({ code, message });
  }

  private received(rows: Row[]): void {
    if (this.phase === 'live') this.deliver(this.finished(rows));
    else if (this.phase === 'catchup') {
      const room = MAX_WAITING_ROWS - this.waiting.length;
      for (const row of room >= rows.length ? rows : rows.slice(0, Math.max(0, room))) this.waiting.push(row);
      this.waitingDropped += Math.max(0, rows.length - Math.max(0, room));
    }
  }

  /** The answer's events for matched rows; none when the stages after a `head` fail (the client hears why, the session goes on). */
  private finished(rows: readonly Row[]): Row[] {
    try {
      return this.finish.finish(rows);
    } catch (error) {
      this.problem('INTERNAL_ERROR', `the query's stages failed over live events: ${(error as Error).message}`);
      return [];
    }
  }

  private deliver(events: readonly Row[]): void {
    const stream = this.stream;
    if (stream === null) return;
    for (const event of events) stream.offerResult(event);
    if (this.finish.exhausted) this.end();
  }

  private scheduleHeartbeat(): void {
    this.heartbeat = setTimeout(() => {
      if (this.phase !== 'live') return;
      this.stream?.offerHeartbeat({ ts: new Date().toISOString(), dropped: this.dropped });
      this.scheduleHeartbeat();
    }, this.options.heartbeatIntervalMs());
  }
}
