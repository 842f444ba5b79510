/**
 * The route table behind 405: a route URL with `:param` segments matches exactly the paths a
 * request can take to it (any non-empty value per parameter, an optional trailing slash), and
 * nothing with another segment count or another literal segment.
 */
import { strict as assert } from 'assert';
import fc from 'fast-check';
import { RouteMethods, routePattern } from '../../../node/http/route-methods';

type Segment = { literal: string } | { param: string };

const literal = fc.stringMatching(/^[a-z0-9_.-]{1,8}$/).map((text) => ({ literal: text }));
const param = fc.stringMatching(/^[a-z]{1,5}$/).map((name) => ({ param: name }));
const template = fc.array(fc.oneof(literal, param), { minLength: 1, maxLength: 6 });
/** A value a client may put in a parameter's place: anything but a slash, percent-encoded or not. */
const value = fc.string({ minLength: 1, maxLength: 12 }).filter((text) => !text.includes('/') && !text.includes('?'));

const urlOf = (segments: Segment[]): string => `/${segments.map((s) => ('literal' in s ? s.literal : `:${s.param}`)).join('/')}`;

function pathOf(segments: Segment[], values: string[]): string {
  return `/${segments.map((s, i) => ('literal' in s ? s.literal : values[i % values.length]!)).join('/')}`;
}

describe('http: route methods for 405', () => {
  it('property: a route matches every path made from it, with or without a trailing slash', () => {
    fc.assert(
      fc.property(template, fc.array(value, { minLength: 1, maxLength: 6 }), fc.boolean(), (segments, values, slash) => {
        const path = pathOf(segments, values) + (slash ? '/' : '');
        assert.ok(routePattern(urlOf(segments)).test(path), `${urlOf(segments)} should match ${path}`);
      }),
      { numRuns: 500 },
    );
  });

  it('property: a route matches no path with another number of segments, or another literal segment', () => {
    fc.assert(
      fc.property(template, fc.array(value, { minLength: 1, maxLength: 6 }), value, fc.nat(), (segments, values, extra, at) => {
        const pattern = routePattern(urlOf(segments));
        const path = pathOf(segments, values);
        assert.ok(!pattern.test(`${path}/${extra}`), `${urlOf(segments)} matched ${path}/${extra}`);
        const literals = segments.map((s, i) => ('literal' in s ? i : -1)).filter((i) => i >= 0);
        if (literals.length === 0) return;
        const index = literals[at % literals.length]!;
        const changed = segments.map((s, i) => (i === index ? { literal: `${(s as { literal: string }).literal}x` } : s));
        assert.ok(!pattern.test(pathOf(changed, values)), `${urlOf(segments)} matched ${pathOf(changed, values)}`);
      }),
      { numRuns: 500 },
    );
  });

  it('lists the methods of every route on a path, sorted, and ignores catch-alls', () => {
    const routes = new RouteMethods();
    routes.add('/api/v1/query/jobs/:id', ['GET', 'HEAD']);
    routes.add('/api/v1/query/jobs/:id', 'delete');
    routes.add('/api/v1/query/jobs/:id/stream', 'GET');
    routes.add('*', 'OPTIONS');
    assert.deepEqual(routes.allowed('/api/v1/query/jobs/qry_1'), ['DELETE', 'GET', 'HEAD']);
    assert.deepEqual(routes.allowed('/api/v1/query/jobs/qry_1/'), ['DELETE', 'GET', 'HEAD']);
    assert.deepEqual(routes.allowed('/api/v1/query/jobs/qry_1/stream'), ['GET']);
    assert.deepEqual(routes.allowed('/api/v1/query/jobs'), []);
    assert.deepEqual(routes.allowed('/anything'), []);
  });
});
