import { strict as assert } from 'assert';
import type { StorageEngine } from '../../../storage/engine';
import { EMPTY_STATE, foundCluster } from '../../../node/cluster/cluster-state';
import { loadClusterState, saveClusterState } from '../../../node/cluster/state-store';
import { tempDir } from '../../helpers/server';
import { openTestEngine } from '../../helpers/engine';

function open(dataDir: string): Promise<StorageEngine> {
  return openTestEngine({ dataDir });
}

describe('cluster state store', () => {
  it('is empty on a new node, keeps the state across a reopen, and names a record it cannot read', async () => {
    const dir = tempDir();
    let engine = await open(dir);
    assert.deepEqual(await loadClusterState(engine.records('cluster')), EMPTY_STATE);
    const state = foundCluster({ id: 'n1', http: '127.0.0.1:7480', grpc: '127.0.0.1:7481', role: 'all' });
    await saveClusterState(engine.records('cluster'), state);
    await engine.close();
    engine = await open(dir);
    assert.deepEqual(await loadClusterState(engine.records('cluster')), state);
    await engine.records('cluster').put('state', Buffer.from('{"version":'));
    await assert.rejects(loadClusterState(engine.records('cluster')), /the stored cluster state \(records area cluster\) cannot be read/);
    await engine.close();
  });
});
