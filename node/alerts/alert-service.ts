/**
 * Alerts on a node: the scheduler that checks them, the query that checks one, the notification
 * of its channels, the dry run and channel test of the API, and the view of an alert with its
 * runtime status. Definitions live in the metadata store (collection `alerts`); the status lives
 * in this node's records (alert-states.ts).
 */
import type { QueryService } from '../../coordinator/query-service';
import { jobFailure } from '../core/errors';
import type { Logger } from '../core/logger';
import type { Settings } from '../config/settings';
import type { NodeRecords } from '../../storage/node-records';
import { alertIntervalMs } from './alert-record';
import { AlertStates } from './alert-states';
import { evaluateResult, type Evaluation } from './condition';
import {
  defaultMessage,
  dispatchNotification,
  dryRunChannels,
  type ChannelOptions,
  type ChannelResult,
  type DryRunResult,
  type Notification,
} from './index';
import { AlertScheduler, type AlertDefinition } from './scheduler';

/** An alert as the metadata store keeps it (with `id`, `created_at`, `updated_at`). */
export type AlertRecord = Record<string, unknown>;
/** Rows a check reads: the condition needs the first row that meets it, a notification the first row. */
const CHECK_ROW_LIMIT = 1000;

export interface AlertServiceDeps {
  queries: QueryService;
  /** The alerts the metadata store holds now. */
  alerts: () => AlertRecord[];
  states: AlertStates;
  settings: () => Settings;
  logger: Logger;
  /** Whether this node checks the alert (a node alone checks all). */
  evaluates: (id: string) => boolean;
  /** See SchedulerDeps.stallPauseMs. */
  stallPauseMs: () => number | null;
}

export interface AlertTest {
  would_trigger: boolean;
  result: Record<string, unknown>;
  channels_that_would_fire: DryRunResult[];
  message: string;
}

export class AlertService {
  readonly scheduler: AlertScheduler;

  constructor(private readonly deps: AlertServiceDeps) {
    this.scheduler = new AlertScheduler({
      alerts: () => this.definitions(),
      evaluates: (id) => deps.evaluates(id),
      check: (alert, fromMs, toMs) => this.check(alert, fromMs, toMs),
      notify: async (alert, evaluation, tickMs) => {
        const results = await this.send(alert, evaluation, new Date(tickMs).toISOString(), false);
        for (const failed of results.filter((result) => result.status === 'error')) {
          deps.logger.warn(`alerts: ${alert.id} (${alert.name}): channel ${failed.name} failed: ${failed.error}`);
        }
      },
      states: deps.states,
      maxConcurrent: () => deps.settings().alerts.maxConcurrentChecks,
      stallPauseMs: deps.stallPauseMs,
      now: () => Date.now(),
      logger: deps.logger,
    });
  }

  static async open(deps: Omit<AlertServiceDeps, 'states'> & { records: NodeRecords }): Promise<AlertService> {
    const { records, ...rest } = deps;
    return new AlertService({ ...rest, states: await AlertStates.open(records) });
  }

  /** An alert as the API shows it: its definition and its runtime status. */
  view(record: AlertRecord): AlertRecord {
    const state = this.deps.states.get(String(record.id));
    const { created_at, updated_at, ...definition } = record;
    return {
      ...definition,
      last_triggered: state.last_triggered,
      last_checked: state.last_checked,
      status: state.status,
      created_at,
      updated_at,
    };
  }

  /** Runs the alert's query over [fromMs, toMs) and applies the condition; throws the query's error as an ApiError. */
  async check(alert: AlertDefinition, fromMs: number, toMs: number): Promise<Evaluation> {
    const nowMs = Date.now();
    const { job } = this.deps.queries.start({
      text: alert.q,
      variables: {},
      fromMicros: fromMs * 1000,
      toMicros: toMs * 1000,
      nowMicros: nowMs * 1000,
      limit: CHECK_ROW_LIMIT,
      offset: 0,
      profile: null,
    });
    await job.finished;
    if (job.status !== 'done' || job.answer === null) {
      const error = job.error ?? { code: 'INTERNAL_ERROR', message: `the query ended ${job.status}` };
      throw jobFailure({ ...error, message: `the alert's query failed: ${error.message}` });
    }
    return evaluateResult(job.answer.data);
  }

  /** `POST /alerts/{id}/test`: checks the last interval now and says what would be sent, sending nothing. */
  async test(alert: AlertDefinition): Promise<AlertTest> {
    const nowMs = Date.now();
    const evaluation = await this.check(alert, nowMs - alertIntervalMs(alert.interval), nowMs);
    const notification = this.notification(alert, evaluation, new Date(nowMs).toISOString(), false);
    return {
      would_trigger: evaluation.met,
      result: evaluation.result,
      channels_that_would_fire: evaluation.met ? await dryRunChannels(alert.channels, this.channelOptions()) : [],
      message: defaultMessage(notification),
    };
  }

  /** `POST /alerts/{id}/test-channels`: a `[TEST]` notification to every enabled channel. */
  async testChannels(alert: AlertDefinition): Promise<ChannelResult[]> {
    const nowMs = Date.now();
    return this.send(alert, { met: true, result: {} }, new Date(nowMs).toISOString(), true);
  }

  private send(alert: AlertDefinition, evaluation: Evaluation, timestamp: string, test: boolean): Promise<ChannelResult[]> {
    return dispatchNotification(alert.channels, this.notification(alert, evaluation, timestamp, test), this.channelOptions());
  }

  private notification(alert: AlertDefinition, evaluation: Evaluation, timestamp: string, test: boolean): Notification {
    const { channels: _channels, ...fields } = alert;
    return { alert: { ...fields, status: this.deps.states.get(alert.id).status }, result: evaluation.result, timestamp, test };
  }

  private channelOptions(): Partial<ChannelOptions> {
    const { alerts } = this.deps.settings();
    const options: Partial<ChannelOptions> = { sendTimeoutMs: alerts.sendTimeoutMs };
    if (alerts.chatBotApi !== null) options.chatBotApi = alerts.chatBotApi;
    if (alerts.incidentPagerApi !== null) options.incidentPagerApi = alerts.incidentPagerApi;
    if (alerts.opsAlertApi !== null) options.opsAlertApi = alerts.opsAlertApi;
    if (alerts.incidentPlatformApi !== null) options.incidentPlatformApi = alerts.incidentPlatformApi;
    return options;
  }

  private definitions(): AlertDefinition[] {
    return this.deps.alerts() as unknown as AlertDefinition[];
  }
}
