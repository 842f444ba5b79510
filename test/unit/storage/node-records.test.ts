import { strict as assert } from 'assert';
import type { StorageEngine } from '../../../storage/engine';
import { tempDir } from '../../helpers/server';
import { openTestEngine } from '../../helpers/engine';

function open(dataDir: string): Promise<StorageEngine> {
  return openTestEngine({ dataDir });
}

describe('node records', () => {
  it('keeps each area apart, scans by prefix in key order, deletes, and survives a reopen', async () => {
    const dir = tempDir();
    let engine = await open(dir);
    const state = engine.records('state');
    const hints = engine.records('hints');
    await state.write([
      { key: 'current', value: Buffer.from('v1') },
      { key: 'members/b', value: Buffer.from('B') },
      { key: 'members/a', value: Buffer.from('A') },
    ]);
    await hints.put('members/a', Buffer.from('not state'));
    await state.delete('current');
    const scanned = async (area: ReturnType<StorageEngine['records']>, prefix?: string) => {
      const out: [string, string][] = [];
      for await (const { key, value } of area.scan(prefix)) out.push([key, value.toString()]);
      return out;
    };
    assert.deepEqual(await scanned(state), [
      ['members/a', 'A'],
      ['members/b', 'B'],
    ]);
    assert.deepEqual(await scanned(state, 'members/b'), [['members/b', 'B']]);
    assert.deepEqual(await scanned(hints), [['members/a', 'not state']]);
    await engine.close();

    engine = await open(dir);
    assert.equal((await engine.records('state').get('members/a'))?.toString(), 'A');
    assert.equal(await engine.records('state').get('current'), null);
    assert.throws(() => engine.records('a/b'), /no '\/'/);
    await engine.close();
  });
});
