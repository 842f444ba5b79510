/** `GET /es/_xpack`: the features a shipper checks for (ILM available; security and monitoring off). */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app/app';

function xpackInfo(app: App): Record<string, unknown> {
  return {
    build: { hash: app.version, date: '1970-01-01T00:00:00.000Z' },
    license: { uid: '00000000-0000-0000-0000-000000000000', type: 'basic', mode: 'basic', status: 'active' },
    features: {
      ilm: { available: true, enabled: true },
      security: { available: true, enabled: false },
      monitoring: { available: true, enabled: false },
    },
    tagline: 'You know, for X',
  };
}

export function xpackRoute(server: FastifyInstance, app: App): void {
  server.get('/es/_xpack', async () => xpackInfo(app));
}
