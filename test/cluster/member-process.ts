/**
 * Drives a cluster member of the harness (harness/member.ts) in a child process: starts it, sends
 * it commands, kills or stops it. Its stderr (the membership log) is kept for failure messages.
 */
import { spawn, type ChildProcess } from 'child_process';
import path from 'path';
import readline from 'readline';
import type { MemberConfig } from './harness/member';

const HARNESS = path.join(__dirname, 'harness', 'member.js');

export interface HarnessError {
  name: string;
  reason?: string;
  message: string;
}

/** A member that refused to start: what it printed, and its exit code. */
export class MemberStartFailure extends Error {
  constructor(
    readonly error: HarnessError,
    readonly exitCode: number | null,
  ) {
    super(`${error.name}: ${error.message}`);
  }
}

export class MemberProcess {
  private log = '';
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  private readonly exited: Promise<number | null>;
  private gone = false;

  private constructor(
    readonly config: MemberConfig,
    private readonly child: ChildProcess,
    startup: (line: Record<string, any>) => void,
  ) {
    child.stderr!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, any>;
      if (message.event !== undefined) return startup(message);
      const waiter = this.pending.get(message.seq as number);
      this.pending.delete(message.seq as number);
      if (message.ok === true) waiter?.resolve(message.result);
      else waiter?.reject(Object.assign(new Error(`${message.error.name}: ${message.error.message}`), message.error as HarnessError));
    });
    // 'close', not 'exit': by then every line it printed has been read.
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
    void this.exited.then(() => {
      this.gone = true;
      for (const waiter of this.pending.values()) waiter.reject(new Error(`member ${config.id} exited:\n${this.log}`));
      this.pending.clear();
    });
  }

  /** Resolves once the member is in the cluster; rejects with MemberStartFailure when it refused to start. */
  static start(config: MemberConfig): Promise<MemberProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [HARNESS, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
      let failure: HarnessError | null = null;
      const member: MemberProcess = new MemberProcess(config, child, (line) => {
        if (line.event === 'ready') resolve(member);
        else if (line.event === 'failed') failure = line.error as HarnessError;
      });
      void member.exited.then((code) =>
        reject(
          failure !== null
            ? new MemberStartFailure(failure, code)
            : new Error(`member ${config.id} exited (${code}) before it was ready:\n${member.log}`),
        ),
      );
    });
  }

  get id(): string {
    return this.config.id;
  }

  get output(): string {
    return this.log;
  }

  ask(op: string, args: Record<string, unknown> = {}): Promise<any> {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      if (this.gone) return reject(new Error(`member ${this.id} is not running (asked ${op})`));
      this.pending.set(seq, { resolve, reject });
      this.child.stdin!.write(`${JSON.stringify({ seq, op, ...args })}\n`);
    });
  }

  /** kill -9: nothing of the shutdown path runs. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM; resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}
