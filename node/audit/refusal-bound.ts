/**
 * The bound on refused credentials the audit log records: a client that keeps sending a wrong
 * token must not fill the store. Each client address gets `auth.audit_refusals` entries per
 * window of `auth.audit_refusal_window` (from its first refusal); the refusals past that are
 * counted, and when the window ends one entry says how many there were. At most
 * MAX_TRACKED_ADDRESSES addresses are followed per window; refusals from any further address are
 * counted together, under the address `other`.
 */

export const MAX_TRACKED_ADDRESSES = 10_000;
export const OTHER_ADDRESSES = 'other';

interface Window {
  startMs: number;
  recorded: number;
  suppressed: number;
}

export interface EndedWindow {
  address: string;
  startMs: number;
  suppressed: number;
}

export interface RefusalLimits {
  perWindow: number;
  windowMs: number;
}

export class RefusalBound {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limits: () => RefusalLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this refusal gets its own entry; false: it is counted toward the window's summary. */
  admit(address: string): boolean {
    const { perWindow } = this.limits();
    const key = this.windows.has(address) || this.windows.size < MAX_TRACKED_ADDRESSES ? address : OTHER_ADDRESSES;
    let window = this.windows.get(key);
    if (window === undefined) {
      window = { startMs: this.now(), recorded: 0, suppressed: 0 };
      this.windows.set(key, window);
    }
    if (key !== OTHER_ADDRESSES && window.recorded < perWindow) {
      window.recorded++;
      return true;
    }
    window.suppressed++;
    return false;
  }

  /** The windows that have ended (all of them with `all`), forgotten now; those that suppressed nothing are left out. */
  ended(all = false): EndedWindow[] {
    const windowMs = Math.max(1, this.limits().windowMs);
    const now = this.now();
    const ended: EndedWindow[] = [];
    for (const [address, window] of this.windows) {
      if (!all && now - window.startMs < windowMs) continue;
      this.windows.delete(address);
      if (window.suppressed > 0) ended.push({ address, startMs: window.startMs, suppressed: window.suppressed });
    }
    return ended;
  }
}
