/**
 * Errors from fastify and node's HTTP parser map onto the catalogue's codes, and every answer is
 * the envelope with the code's status.
 */
import { strict as assert } from 'assert';
import { ApiError } from '../../../node/core/errors';
import { errorReply, pathOf, toApiError } from '../../../node/http/errors';

describe('http: error mapping', () => {
  it('maps framework and parser errors by code, then by status', () => {
    const cases: [unknown, number, string][] = [
      [{ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400, message: 'bad' }, 400, 'INVALID_JSON'],
      [{ code: 'FST_ERR_VALIDATION', statusCode: 400, message: 'body/limit must be >= 0' }, 400, 'VALIDATION_ERROR'],
      [{ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [{ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }, 413, 'PAYLOAD_TOO_LARGE'],
      [{ code: 'FST_ERR_BAD_URL', statusCode: 400 }, 400, 'INVALID_REQUEST'],
      [{ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414, message: 'too long' }, 414, 'URI_TOO_LONG'],
      [{ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, 408, 'REQUEST_TIMEOUT'],
      [{ code: 'HPE_HEADER_OVERFLOW' }, 431, 'HEADERS_TOO_LARGE'],
      [{ code: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' }, 413, 'PAYLOAD_TOO_LARGE'],
      [{ code: 'HPE_INVALID_CHUNK_SIZE' }, 400, 'INVALID_REQUEST'],
      [{ code: 'HPE_SOMETHING_NEW', reason: 'Odd byte' }, 400, 'INVALID_REQUEST'],
      [{ statusCode: 418, message: 'teapot' }, 418, 'INVALID_REQUEST'],
      [{ statusCode: 502, message: 'upstream' }, 500, 'INTERNAL_ERROR'],
      [new Error('boom'), 500, 'INTERNAL_ERROR'],
      ['a string', 500, 'INTERNAL_ERROR'],
      [new ApiError('BACKPRESSURE'), 503, 'BACKPRESSURE'],
    ];
    for (const [error, status, code] of cases) {
      const reply = errorReply(error, '/api/v1/query');
      assert.equal(reply.status, status, JSON.stringify(error));
      const body = reply.body as { error: { code: string; message: string } };
      assert.deepEqual(Object.keys(body), ['error'], JSON.stringify(error));
      assert.equal(body.error.code, code, JSON.stringify(error));
      assert.ok(typeof body.error.message === 'string' && body.error.message.length > 0, JSON.stringify(error));
    }
    assert.match(toApiError({ code: 'HPE_SOMETHING_NEW', reason: 'Odd byte' }).message, /Odd byte/);
    assert.equal(toApiError({ code: 'HPE_INVALID_CHUNK_SIZE' }).status, 400);
  });

  it('keeps an ApiError as it is, details included', () => {
    const error = new ApiError('INVALID_QUERY', 'no', { parse_code: 'E001' });
    assert.deepEqual(errorReply(error, null), {
      status: 400,
      body: { error: { code: 'INVALID_QUERY', message: 'no', parse_code: 'E001' } },
    });
  });

  it('takes the path of a request target', () => {
    assert.equal(pathOf('/api/v1/query?q=x'), '/api/v1/query');
    assert.equal(pathOf('/health'), '/health');
    assert.equal(pathOf(undefined), null);
  });
});
