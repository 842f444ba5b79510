/**
 * Runs each enabled alert this node evaluates once per interval. Ticks are aligned to multiples of
 * the interval since the epoch, so every node agrees on them: a check at tick end T reads the
 * window [T - interval, T), and T is the key that keeps a tick from being notified twice (it is
 * recorded before the channels are sent to, across restarts and across nodes taking an alert
 * over). At most `alerts.max_concurrent_checks` checks run at once; a check still running when its
 * next tick ends delays that tick rather than piling up.
 */
import type { Logger } from '../core/logger';
import type { AlertChannel } from './types';
import type { Evaluation } from './condition';
import type { AlertState, AlertStates } from './alert-states';
import { alertIntervalMs } from './alert-record';

export interface AlertDefinition {
  id: string;
  name: string;
  q: string;
  interval: string;
  enabled: boolean;
  channels: AlertChannel[];
}

export interface SchedulerDeps {
  /** The alerts as the metadata store holds them now. */
  alerts(): AlertDefinition[];
  /** Whether this node is the one that evaluates the alert (always, alone). */
  evaluates(id: string): boolean;
  /** Runs the alert's query over [fromMs, toMs). Throws on a failed query. */
  check(alert: AlertDefinition, fromMs: number, toMs: number): Promise<Evaluation>;
  /** Sends to the alert's enabled channels; never throws (a channel's failure is its own). */
  notify(alert: AlertDefinition, evaluation: Evaluation, tickMs: number): Promise<void>;
  states: AlertStates;
  maxConcurrent(): number;
  /**
   * In a cluster, cluster.failure_timeout: after its own event loop stalled that long (stopped,
   * swapping), this node checks nothing for as long, so that its view of who is up (and so of which
   * alerts are its own) is fresh again before it checks; null alone.
   */
  stallPauseMs(): number | null;
  now(): number;
  logger: Logger;
}

/** How often the scheduler looks for ticks that ended: well under the smallest interval allowed. */
const POLL_MS = 100;

export class AlertScheduler {
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Map<string, Promise<void>>();
  /** The last tick end checked, per alert (a restart checks the tick that just ended again; notifying stays once). */
  private readonly checkedTick = new Map<string, number>();
  private lastPollMs: number | null = null;
  private pausedUntilMs = 0;

  constructor(private readonly deps: SchedulerDeps) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Stops scheduling and waits for the checks under way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.running.values()]);
  }

  private poll(): void {
    const now = this.deps.now();
    const pause = this.deps.stallPauseMs();
    if (pause !== null && this.lastPollMs !== null && now - this.lastPollMs > pause) {
      // Every alert is seen anew after the pause: the ticks missed meanwhile are another node's.
      this.pausedUntilMs = now + pause;
      this.checkedTick.clear();
    }
    this.lastPollMs = now;
    if (now < this.pausedUntilMs) return;
    const alerts = this.deps.alerts();
    void this.deps.states
      .keepOnly(new Set(alerts.map((alert) => alert.id)))
      .catch((error: Error) => this.deps.logger.warn(`alerts: ${error.message}`));
    for (const alert of alerts) {
      if (this.running.size >= this.deps.maxConcurrent()) return;
      if (!alert.enabled || this.running.has(alert.id) || !this.deps.evaluates(alert.id)) continue;
      let intervalMs: number;
      try {
        intervalMs = alertIntervalMs(alert.interval);
      } catch {
        continue;
      }
      const tick = Math.floor(now / intervalMs) * intervalMs;
      const last = this.checkedTick.get(alert.id);
      if (last === undefined) {
        // First sight (a new alert, a start, an alert taken over): its first tick is the next one to end.
        this.checkedTick.set(alert.id, tick);
        continue;
      }
      if (tick <= last) continue;
      this.checkedTick.set(alert.id, tick);
      const run = this.run(alert, tick, intervalMs).finally(() => this.running.delete(alert.id));
      this.running.set(alert.id, run);
    }
  }

  /** Checks one tick and records the outcome; notifies when the condition is met and the tick was not notified yet. */
  async run(alert: AlertDefinition, tick: number, intervalMs: number): Promise<void> {
    const { states, logger } = this.deps;
    const state: AlertState = states.get(alert.id);
    const checkedAt = new Date(this.deps.now()).toISOString();
    let evaluation: Evaluation;
    try {
      evaluation = await this.deps.check(alert, tick - intervalMs, tick);
    } catch (error) {
      await states.set(alert.id, { ...state, status: 'error', last_checked: checkedAt, error: (error as Error).message });
      logger.warn(`alerts: ${alert.id} (${alert.name}): the check failed: ${(error as Error).message}`);
      return;
    }
    if (!evaluation.met) {
      await states.set(alert.id, {
        status: 'ok',
        last_checked: checkedAt,
        last_triggered: state.last_triggered,
        notifiedTick: state.notifiedTick,
      });
      return;
    }
    const notify = state.notifiedTick < tick;
    await states.set(alert.id, {
      status: 'triggered',
      last_checked: checkedAt,
      last_triggered: checkedAt,
      notifiedTick: notify ? tick : state.notifiedTick,
    });
    if (notify) await this.deps.notify(alert, evaluation, tick);
  }
}
