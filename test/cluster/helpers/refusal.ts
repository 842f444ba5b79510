/** A peer call the test expects refused: the refusal, or a failure when it was answered or failed otherwise. */
import { strict as assert } from 'assert';
import { PeerCallError } from '../../../node/cluster/grpc/peers';

export async function refusal(call: Promise<unknown>): Promise<PeerCallError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof PeerCallError, String(error));
    return error;
  }
  throw new Error('the call was answered');
}
