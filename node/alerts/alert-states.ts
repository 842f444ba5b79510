/**
 * The runtime state of each alert this node evaluates: `status`, `last_checked`, `last_triggered`,
 * and the last tick it notified for, so that a restart neither forgets the status nor notifies a
 * tick twice. Kept in the node records' `alerts` area, one record per alert.
 */
import type { NodeRecords } from '../../storage/node-records';

export type AlertStatus = 'ok' | 'triggered' | 'error';

export interface AlertState {
  status: AlertStatus;
  last_checked: string | null;
  last_triggered: string | null;
  /** The end of the last tick notified (ms since the epoch), 0 before any. */
  notifiedTick: number;
  /** Why the last check failed (status `error`). */
  error?: string;
}

export const INITIAL_STATE: Readonly<AlertState> = { status: 'ok', last_checked: null, last_triggered: null, notifiedTick: 0 };

export class AlertStates {
  private readonly states = new Map<string, AlertState>();

  private constructor(private readonly records: NodeRecords) {}

  static async open(records: NodeRecords): Promise<AlertStates> {
    const store = new AlertStates(records);
    for await (const { key, value } of records.scan()) {
      try {
        store.states.set(key, { ...INITIAL_STATE, ...(JSON.parse(value.toString('utf8')) as Partial<AlertState>) });
      } catch {
        // A record that does not parse is an alert whose state starts over: status ok.
      }
    }
    return store;
  }

  get(id: string): AlertState {
    return { ...(this.states.get(id) ?? INITIAL_STATE) };
  }

  async set(id: string, state: AlertState): Promise<void> {
    this.states.set(id, { ...state });
    await this.records.put(id, Buffer.from(JSON.stringify(state)));
  }

  /** Forgets the states of alerts that no longer exist. */
  async keepOnly(ids: ReadonlySet<string>): Promise<void> {
    const gone = [...this.states.keys()].filter((id) => !ids.has(id));
    if (gone.length === 0) return;
    for (const id of gone) this.states.delete(id);
    await this.records.write(gone.map((key) => ({ key, value: null })));
  }
}
