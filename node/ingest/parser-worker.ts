/** Ingest worker thread: parses request bodies for parser-pool.ts. */
import { parentPort } from 'worker_threads';
import { threadHeapBytes } from '../../storage/threads/thread-memory';
import { ApiError } from '../core/errors';
import { parseBody, type ParseRequest, type ParseResponse } from './parser-pool';

if (parentPort !== null) {
  const port = parentPort;
  port.on('message', (request: ParseRequest) => {
    let response: ParseResponse;
    let transfer: ArrayBuffer[] = [];
    try {
      const body = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      const parsed = parseBody(request.params, body, request.placement);
      // A record in a SharedArrayBuffer is shared by the message itself; anything else moves.
      const memory = parsed.record.buffer;
      transfer = memory instanceof ArrayBuffer ? [memory] : [];
      response = { id: request.id, ok: true, parsed };
    } catch (error) {
      const failure =
        error instanceof ApiError
          ? { apiError: true, status: error.status, code: error.code, message: error.message, details: error.details }
          : {
              apiError: false,
              status: 500,
              code: 'INTERNAL_ERROR' as const,
              message: (error as Error).stack ?? String(error),
              details: {},
            };
      response = { id: request.id, ok: false, error: failure };
    }
    port.postMessage({ ...response, heap: threadHeapBytes() }, transfer);
  });
}
