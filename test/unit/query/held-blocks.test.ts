/**
 * The held-blocks protocol (query/exec/held-blocks.ts) between the main thread's mirror and a
 * query worker, with messages and responses in flight in both directions, several sessions
 * deciding at once, and a budget small enough that the worker evicts all the time: a block the
 * main thread leaves out of a message must still be in the worker when the message arrives.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { expandHeldReads, fillHeld, HeldBlocks, HeldMirror, keepReceived, planHeldReads } from '../../../query/exec/held-blocks';
import type { BlockInput } from '../../../storage/read/block-input';

const COLUMNS = ['_time', 'status', 'path', '_raw'];

/** The stored bytes of a block: recognisable, and sized by name so that the budget bites. */
function storedBlock(segment: string, block: number, column: string): Uint8Array {
  const text = `${segment}/${block}/${column}`;
  return new Uint8Array(Buffer.from(text.repeat(1 + ((block * 7 + column.length) % 5))));
}

interface Message {
  release: number;
  inputs: BlockInput[];
}

/** One simulated main thread and worker, stepped by the commands a property draws. */
class Simulation {
  readonly mirror = new HeldMirror();
  readonly worker: HeldBlocks;
  /** Decided, read, not yet posted (per session). */
  private readonly decided: { token: number | undefined; inputs: BlockInput[] }[][] = [[], [], []];
  private readonly toWorker: Message[] = [];
  private readonly toMain: ReturnType<HeldBlocks['delta']>[] = [];
  messagesWithHeldBlocks = 0;

  constructor(budget: number) {
    this.worker = new HeldBlocks(budget);
  }

  /** A session plans the read of some row blocks (all columns of each). */
  decide(session: number, segment: number, blocks: number[]): void {
    const wanted = blocks.map((block) => ({ segment: `s${segment}`, block, stored: COLUMNS }));
    const plan = planHeldReads(this.mirror, wanted);
    // What the storage read returns: the columns not held.
    const read = wanted.map((want, i) => plan.toRead[i].map((column) => Buffer.from(storedBlock(want.segment, want.block, column))));
    const buffers = expandHeldReads(plan, read);
    const inputs: BlockInput[] = wanted.map((want, i) => ({
      index: 'main',
      segment: want.segment,
      block: want.block,
      rows: 1,
      stored: [...want.stored],
      buffers: buffers[i],
      rawFrames: null,
      ...(plan.held[i].length > 0 ? { held: plan.held[i] } : {}),
    }));
    for (const input of inputs) {
      input.held?.forEach((position) => assert.equal(input.buffers[position], null, 'a held block is not read'));
      assert.equal(input.buffers.length, COLUMNS.length);
    }
    this.decided[session].push({ token: plan.decision?.token, inputs });
  }

  /** A session posts its oldest decided message (a session posts in order). */
  post(session: number): void {
    const next = this.decided[session].shift();
    if (next === undefined) return;
    this.toWorker.push({ release: this.mirror.releasePoint(), inputs: next.inputs });
    if (next.token !== undefined) this.mirror.settle(next.token);
  }

  /** The worker takes the next message: every held block must be there. */
  work(): void {
    const message = this.toWorker.shift();
    if (message === undefined) return;
    this.worker.release(message.release);
    for (const input of message.inputs) fillHeld(this.worker, input);
    for (const input of message.inputs) {
      input.stored.forEach((column, position) => {
        const buffer = input.buffers[position];
        assert.ok(buffer !== null);
        assert.deepEqual(
          Buffer.from(buffer),
          Buffer.from(storedBlock(input.segment, input.block, column)),
          `${input.segment}/${input.block}/${column}`,
        );
      });
      if (input.held !== undefined) this.messagesWithHeldBlocks++;
      keepReceived(this.worker, input);
    }
    this.toMain.push(this.worker.delta());
  }

  /** The main thread takes the next response. */
  answer(): void {
    if (this.toMain.length === 0) return;
    this.mirror.apply(this.toMain.shift());
  }

  /** Everything delivered: nothing stays pinned once the last message released it. */
  drain(): void {
    for (let session = 0; session < this.decided.length; session++) while (this.decided[session].length > 0) this.post(session);
    while (this.toWorker.length > 0 || this.toMain.length > 0) {
      this.work();
      this.answer();
    }
  }
}

const command = fc.oneof(
  fc.record({
    kind: fc.constant('decide' as const),
    session: fc.nat(2),
    segment: fc.nat(3),
    blocks: fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('post' as const), session: fc.nat(2) }),
  fc.record({ kind: fc.constant('work' as const) }),
  fc.record({ kind: fc.constant('answer' as const) }),
);

describe('held blocks', () => {
  it('never leaves out a block the worker no longer has, whatever the interleaving', () => {
    let withHeld = 0;
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 40, maxLength: 200, size: 'max' }),
        fc.integer({ min: 40, max: 600 }),
        (commands, budget) => {
          const sim = new Simulation(budget);
          for (const c of commands) {
            if (c.kind === 'decide') sim.decide(c.session, c.segment, c.blocks);
            else if (c.kind === 'post') sim.post(c.session);
            else if (c.kind === 'work') sim.work();
            else sim.answer();
          }
          sim.drain();
          withHeld += sim.messagesWithHeldBlocks;
        },
      ),
      { numRuns: 400 },
    );
    // The property is only worth something if blocks were left out often.
    assert.ok(withHeld > 400, `messages that relied on held blocks: ${withHeld}`);
  });

  it('keeps the budget, reports what it holds and drops, and releases pinned blocks', () => {
    const worker = new HeldBlocks(100);
    const mirror = new HeldMirror();
    const block = (n: number): Uint8Array => new Uint8Array(40).fill(n);
    worker.keep('a', block(1));
    worker.keep('b', block(2));
    mirror.apply(worker.delta());
    assert.ok(mirror.has('a') && mirror.has('b'));
    // A decision that counts on 'a', then 'c' evicts it.
    const token = mirror.decide();
    worker.keep('c', block(3));
    const delta = worker.delta();
    assert.deepEqual(delta, { held: ['c'], dropped: ['a'] });
    mirror.apply(delta);
    assert.ok(!mirror.has('a') && mirror.has('c'));
    // Still outstanding: a message posted now may not release response 2, which dropped 'a'.
    assert.equal(mirror.releasePoint(), 1);
    worker.release(mirror.releasePoint());
    assert.deepEqual(worker.get('a'), block(1), 'pinned until released');
    assert.ok(worker.bytes > 100, 'pinned bytes count');
    mirror.settle(token);
    assert.equal(mirror.releasePoint(), 2);
    worker.release(mirror.releasePoint());
    assert.equal(worker.get('a'), undefined);
    assert.ok(worker.bytes <= 100);
    // `_raw` is never held; a block larger than the budget is not either.
    const input: BlockInput = {
      index: 'main',
      segment: 's',
      block: 0,
      rows: 1,
      stored: ['_raw', 'big'],
      buffers: [block(4), new Uint8Array(101)],
      rawFrames: null,
    };
    keepReceived(worker, input);
    assert.equal(worker.get('s/0/_raw'), undefined);
    assert.equal(worker.get('s/0/big'), undefined);
    assert.equal(worker.delta(), undefined);
  });

  it('holds nothing with a budget of 0', () => {
    const worker = new HeldBlocks(0);
    worker.keep('a', new Uint8Array(4));
    assert.equal(worker.get('a'), undefined);
    assert.equal(worker.delta(), undefined);
    assert.deepEqual(planHeldReads(null, [{ segment: 's', block: 0, stored: COLUMNS }]).held, [[]]);
  });
});
