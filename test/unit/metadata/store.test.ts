import { strict as assert } from 'assert';
import fc from 'fast-check';
import { ApiError } from '../../../node/core/errors';
import { SAVED_QUERIES } from '../../../node/metadata/collections';
import { MetadataNotFoundError, MetadataStore, type MetadataRecord, type MetadataWrite } from '../../../node/metadata/store';
import { LocalMetadataWriter } from '../../../node/metadata/writer';
import { QueryError } from '../../../query/syntax';
import type { StorageEngine } from '../../../storage/engine';
import { tempDir } from '../../helpers/server';
import { openTestEngine } from '../../helpers/engine';

const SQ = SAVED_QUERIES.name;
const START = Date.UTC(2024, 10, 21, 10, 0, 0, 250);

function openEngine(dataDir: string): Promise<StorageEngine> {
  return openTestEngine({ dataDir });
}

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let ms = START;
  return { now: () => ms, advance: (by) => (ms += by) };
}

function create(record: MetadataRecord): MetadataWrite {
  return { collection: SQ, op: 'create', record };
}

/** The client's fields of a stored record. */
function fieldsOf(record: MetadataRecord | null | undefined): MetadataRecord {
  assert.ok(record !== null && record !== undefined, 'a record');
  const { id: _id, created_at: _created, updated_at: _updated, ...fields } = record;
  return fields;
}

describe('metadata store', function () {
  this.timeout(60_000);
  let engine: StorageEngine;

  before(async () => {
    engine = await openEngine(tempDir());
  });

  after(async () => {
    await engine.close();
  });

  it('create assigns a prefixed URL-safe id and equal ISO 8601 times, and bumps the version', async () => {
    const clock = manualClock();
    const store = await MetadataStore.open(engine.records('create'), { now: clock.now });
    assert.deepEqual(store.snapshot(), { version: 0, collections: {} });
    const first = await store.apply(create({ name: 'errors', q: 'from main | where status >= 500', from: '-1h' }));
    assert.equal(first.version, 1);
    const record = first.record!;
    assert.match(String(record.id), /^sq_[A-Za-z0-9_-]{16}$/);
    assert.deepEqual(record, {
      id: record.id,
      name: 'errors',
      q: 'from main | where status >= 500',
      from: '-1h',
      created_at: '2024-11-21T10:00:00.250Z',
      updated_at: '2024-11-21T10:00:00.250Z',
    });
    assert.deepEqual(Object.keys(record), ['id', 'name', 'q', 'from', 'created_at', 'updated_at']);
    clock.advance(1000);
    const second = await store.apply(create({ name: 'all', q: 'from *' }));
    assert.equal(second.version, 2);
    assert.notEqual(second.record!.id, record.id);
    assert.deepEqual(store.get(SQ, String(record.id)), record);
    assert.deepEqual(
      store.list(SQ).map((item) => item.name),
      ['errors', 'all'],
      'oldest first',
    );
    assert.equal(store.get(SQ, 'sq_unknown'), undefined);
    assert.deepEqual(store.list('dashboards'), []);
  });

  it('replace keeps created_at, refreshes updated_at and replaces every field; delete removes', async () => {
    const clock = manualClock();
    const store = await MetadataStore.open(engine.records('replace'), { now: clock.now });
    const created = (await store.apply(create({ name: 'slow', q: 'from main | where ms > 500', from: '-15m' }))).record!;
    const id = String(created.id);
    clock.advance(60_000);
    const replaced = await store.apply({ collection: SQ, op: 'replace', id, record: { name: 'slower', q: 'from main | where ms > 900' } });
    assert.equal(replaced.version, 2);
    assert.deepEqual(replaced.record, {
      id,
      name: 'slower',
      q: 'from main | where ms > 900',
      created_at: '2024-11-21T10:00:00.250Z',
      updated_at: '2024-11-21T10:01:00.250Z',
    });
    assert.deepEqual(store.get(SQ, id), replaced.record);
    const deleted = await store.apply({ collection: SQ, op: 'delete', id });
    assert.deepEqual(deleted, { version: 3, record: null });
    assert.equal(store.get(SQ, id), undefined);
    assert.deepEqual(store.list(SQ), []);
  });

  it('moves its times on by at least a millisecond per write when the clock stands still or goes back, also after a reopen', async () => {
    let clockMs = START;
    const records = engine.records('clock');
    const store = await MetadataStore.open(records, { now: () => clockMs });
    const first = (await store.apply(create({ name: 'first', q: 'from main' }))).record!;
    const second = (await store.apply(create({ name: 'second', q: 'from main' }))).record!;
    clockMs -= 60_000;
    const replaced = (
      await store.apply({ collection: SQ, op: 'replace', id: String(first.id), record: { name: 'first again', q: 'from main' } })
    ).record!;
    assert.deepEqual(
      [first.created_at, second.created_at, replaced.created_at, replaced.updated_at],
      ['2024-11-21T10:00:00.250Z', '2024-11-21T10:00:00.251Z', '2024-11-21T10:00:00.250Z', '2024-11-21T10:00:00.252Z'],
    );
    assert.deepEqual(
      store.list(SQ).map((item) => item.name),
      ['first again', 'second'],
    );
    const reopened = await MetadataStore.open(records, { now: () => START });
    const third = (await reopened.apply(create({ name: 'third', q: 'from main' }))).record!;
    assert.equal(third.created_at, '2024-11-21T10:00:00.253Z');
  });

  it('refuses unknown ids and bad records without a version bump', async () => {
    const store = await MetadataStore.open(engine.records('refuse'));
    const id = String((await store.apply(create({ name: 'kept', q: 'from main' }))).record!.id);
    const before = store.snapshot();
    const notFound = (e: unknown) =>
      e instanceof MetadataNotFoundError && e.id === 'sq_gone' && /no saved query with id "sq_gone"/.test(e.message);
    await assert.rejects(store.apply({ collection: SQ, op: 'replace', id: 'sq_gone', record: { name: 'a', q: 'from main' } }), notFound);
    await assert.rejects(store.apply({ collection: SQ, op: 'delete', id: 'sq_gone' }), notFound);
    const invalid: [MetadataRecord, (e: unknown) => boolean][] = [
      [{ q: 'from main' }, (e) => e instanceof ApiError && e.code === 'VALIDATION_ERROR' && e.message === 'name is required'],
      [{ name: ' ', q: 'from main' }, (e) => e instanceof ApiError && /^name must be a non-empty string/.test(e.message)],
      [{ name: 'a', q: 42 }, (e) => e instanceof ApiError && /^q must be a non-empty string/.test(e.message)],
      [{ name: 'a', q: 'from main', to: 'now' }, (e) => e instanceof ApiError && /field "to" is not accepted/.test(e.message)],
      [
        { name: 'a', q: 'from main', from: 'yesterday' },
        (e) => e instanceof ApiError && /^from: "yesterday" is not a time/.test(e.message),
      ],
      [{ name: 'a', q: 'from main | eval x = 1' }, (e) => e instanceof QueryError && e.code === 'E003'],
      [{ name: 'a', q: 'from main | where a = $' }, (e) => e instanceof QueryError && e.code === 'E001'],
    ];
    for (const [record, expected] of invalid) {
      await assert.rejects(store.apply(create(record)), expected, JSON.stringify(record));
      await assert.rejects(store.apply({ collection: SQ, op: 'replace', id, record }), expected, `replace ${JSON.stringify(record)}`);
    }
    await assert.rejects(store.apply({ collection: 'nothing', op: 'create', record: {} }), /no metadata collection "nothing"/);
    assert.deepEqual(store.snapshot(), before);
  });

  it('accepts $variables in the query text and null as an absent from', async () => {
    const store = await MetadataStore.open(engine.records('variables'));
    const { record } = await store.apply(
      create({ name: 'by host', q: 'from main | where host = $host and status >= ${min} | head 5', from: null }),
    );
    assert.deepEqual(fieldsOf(record), { name: 'by host', q: 'from main | where host = $host and status >= ${min} | head 5' });
  });

  it('hands out copies: changing a returned record changes nothing stored', async () => {
    const store = await MetadataStore.open(engine.records('copies'));
    const { record } = await store.apply(create({ name: 'mine', q: 'from main' }));
    const id = String(record!.id);
    record!.name = 'changed';
    store.get(SQ, id)!.name = 'changed';
    store.list(SQ)[0]!.name = 'changed';
    store.snapshot().collections[SQ]![id]!.name = 'changed';
    assert.equal(store.get(SQ, id)!.name, 'mine');
  });

  it('applies concurrent writes one after another, each with its own version', async () => {
    const store = await MetadataStore.open(engine.records('concurrent'));
    const applied = await Promise.all(Array.from({ length: 20 }, (_, i) => store.apply(create({ name: `q${i}`, q: 'from main' }))));
    assert.deepEqual(
      applied.map((result) => result.version).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.equal(store.list(SQ).length, 20);
    assert.equal(store.snapshot().version, 20);
  });

  it('keeps its records and version across a reopen of the engine', async () => {
    const dir = tempDir();
    let own = await openEngine(dir);
    const store = await MetadataStore.open(own.records('metadata'));
    const kept = (await store.apply(create({ name: 'kept', q: 'from main', from: '2024-11-21T00:00:00Z' }))).record!;
    const gone = (await store.apply(create({ name: 'gone', q: 'from web' }))).record!;
    await store.apply({ collection: SQ, op: 'delete', id: String(gone.id) });
    const expected = { version: 3, collections: { [SQ]: { [String(kept.id)]: kept } } };
    assert.deepEqual(store.snapshot(), expected);
    await own.close();

    own = await openEngine(dir);
    try {
      const reopened = await MetadataStore.open(own.records('metadata'));
      assert.deepEqual(reopened.snapshot(), expected);
      assert.equal((await reopened.apply(create({ name: 'next', q: 'from main' }))).version, 4);
    } finally {
      await own.close();
    }
  });

  it('refuses to open an area it cannot read whole, naming the record', async () => {
    const records = engine.records('corrupt');
    await records.put('item/saved_queries/sq_x', Buffer.from('{not json'));
    await assert.rejects(MetadataStore.open(records), /metadata record "item\/saved_queries\/sq_x" is not JSON/);
    await records.write([
      { key: 'item/saved_queries/sq_x', value: null },
      { key: 'stray', value: Buffer.from('1') },
    ]);
    await assert.rejects(MetadataStore.open(records), /unexpected metadata record "stray"/);
  });

  it('install replaces everything with a newer snapshot, durably, and ignores an older or equal one', async () => {
    const master = await MetadataStore.open(engine.records('master'));
    const replicaRecords = engine.records('replica');
    const replica = await MetadataStore.open(replicaRecords);
    // The replica holds a record the master never had: a newer snapshot removes it.
    const stale = (await replica.apply(create({ name: 'replica only', q: 'from main' }))).record!;
    const a = (await master.apply(create({ name: 'a', q: 'from main' }))).record!;
    const b = (await master.apply(create({ name: 'b', q: 'from web' }))).record!;
    const older = master.snapshot();
    assert.equal(older.version, 2);
    await master.apply({ collection: SQ, op: 'replace', id: String(a.id), record: { name: 'a2', q: 'from main | head 1' } });
    const newer = master.snapshot();

    assert.equal(await replica.install(newer), true);
    assert.deepEqual(replica.snapshot(), newer);
    assert.equal(replica.get(SQ, String(stale.id)), undefined);
    assert.equal(replica.get(SQ, String(a.id))!.name, 'a2');
    assert.deepEqual(replica.get(SQ, String(b.id)), b);

    assert.equal(await replica.install(older), false, 'an older snapshot');
    assert.equal(await replica.install(newer), false, 'the same version');
    assert.equal(await replica.install({ version: 3, collections: {} }), false, 'an equal version with other content');
    assert.deepEqual(replica.snapshot(), newer);
    assert.deepEqual((await MetadataStore.open(replicaRecords)).snapshot(), newer, 'what the replica installed is what it reopens with');

    assert.equal(await replica.install({ version: 10, collections: {} }), true, 'a newer, empty snapshot');
    assert.deepEqual(replica.snapshot(), { version: 10, collections: {} });
    assert.deepEqual((await MetadataStore.open(replicaRecords)).snapshot(), { version: 10, collections: {} });

    const malformed = [
      { version: -1, collections: {} },
      { version: 11 },
      { version: 11, collections: { 'a/b': {} } },
      { version: 11, collections: { x: { id: 5 } } },
    ];
    for (const snapshot of malformed) {
      await assert.rejects(replica.install(snapshot as never), /metadata snapshot/, JSON.stringify(snapshot));
    }
    assert.equal(replica.snapshot().version, 10);
  });

  it('the local writer applies to its store', async () => {
    const store = await MetadataStore.open(engine.records('writer'));
    const applied = await new LocalMetadataWriter(store).write(create({ name: 'through the writer', q: 'from main' }));
    assert.equal(applied.version, 1);
    assert.deepEqual(store.list(SQ), [applied.record]);
  });

  it('any sequence of writes gives the records a model predicts, and a reopen gives the same snapshot (property)', async () => {
    const fields = fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 12 }).filter((name) => name.trim() !== ''),
        q: fc.constantFrom(
          'from main',
          'from web | where status >= 500',
          'from * | stats count() by host',
          'from main | where host = $host',
        ),
        from: fc.constantFrom('-1h', 'now-15m', '2024-11-21T10:00:00Z'),
      },
      { requiredKeys: ['name', 'q'] },
    );
    // A target picks an existing record by position, or an id no record has.
    const target = fc.oneof(fc.nat(), fc.constant(-1));
    const step = fc.oneof(
      fields.map((record) => ({ op: 'create' as const, record })),
      fc.tuple(target, fields).map(([at, record]) => ({ op: 'replace' as const, at, record })),
      target.map((at) => ({ op: 'delete' as const, at })),
    );
    let run = 0;
    // The model holds plain copies: fast-check may generate records without a prototype.
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 15 }), async (steps) => {
        const clock = manualClock();
        const records = engine.records(`property${run++}`);
        const store = await MetadataStore.open(records, { now: clock.now });
        const model = new Map<string, MetadataRecord>();
        let writes = 0;
        for (const change of steps) {
          clock.advance(7);
          const ids = [...model.keys()];
          const id = 'at' in change ? (change.at < 0 || ids.length === 0 ? 'sq_none' : ids[change.at % ids.length]!) : '';
          if (change.op === 'create') {
            const { record } = await store.apply(create(change.record));
            model.set(String(record!.id), { ...change.record });
          } else if (!model.has(id)) {
            await assert.rejects(
              store.apply(
                change.op === 'delete'
                  ? { collection: SQ, op: 'delete', id }
                  : { collection: SQ, op: 'replace', id, record: change.record },
              ),
              MetadataNotFoundError,
            );
            continue;
          } else if (change.op === 'replace') {
            await store.apply({ collection: SQ, op: 'replace', id, record: change.record });
            model.set(id, { ...change.record });
          } else {
            await store.apply({ collection: SQ, op: 'delete', id });
            model.delete(id);
          }
          writes++;
        }
        const snapshot = store.snapshot();
        assert.equal(snapshot.version, writes);
        const stored = snapshot.collections[SQ] ?? {};
        assert.deepEqual(Object.keys(stored).sort(), [...model.keys()].sort());
        for (const [id, expected] of model) assert.deepEqual(fieldsOf(stored[id]), expected);
        assert.deepEqual((await MetadataStore.open(records)).snapshot(), snapshot);
      }),
      { numRuns: 60 },
    );
  });
});
