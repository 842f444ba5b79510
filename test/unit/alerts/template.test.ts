import { strict as assert } from 'assert';
import fc from 'fast-check';
import { defaultMessage, lookup, renderTemplate, valueText } from '../../../node/alerts/template';
import type { Notification } from '../../../node/alerts/types';

const notification: Notification = {
  alert: { id: 'alt_7', name: 'errors up', q: 'from main | where level = error | stats count()', interval: '1m', status: 'triggered' },
  result: { 'count()': 42, 'order.id': 'o-7', ok: true, empty: null, nested: { a: [1, 2] } },
  timestamp: '2026-11-27T08:00:00.000Z',
};

describe('alert templates', () => {
  it('fills alert fields, result columns and the timestamp', () => {
    assert.equal(
      renderTemplate('{{.alert.name}} ({{.alert.id}}, every {{.alert.interval}}, {{.alert.status}})', notification),
      'errors up (alt_7, every 1m, triggered)',
    );
    assert.equal(renderTemplate('q={{.alert.q}}', notification), `q=${notification.alert.q}`);
    assert.equal(renderTemplate('{{.result.count()}} errors at {{.timestamp}}', notification), '42 errors at 2026-11-27T08:00:00.000Z');
    assert.equal(
      renderTemplate('order {{ .result.order.id }}', notification),
      'order o-7',
      'spaces inside the braces and dots in a column name',
    );
  });

  it('inserts values as text: the author writes the quotes of a JSON body', () => {
    const body = renderTemplate(
      '{"alert":"{{.alert.name}}","count":{{.result.count()}},"ok":{{.result.ok}},"nested":{{.result.nested}}}',
      notification,
    );
    assert.deepEqual(JSON.parse(body), { alert: 'errors up', count: 42, ok: true, nested: { a: [1, 2] } });
    assert.equal(valueText(null), '');
    assert.equal(valueText(1.5), '1.5');
  });

  it('renders a placeholder that names no value as empty, and keeps non-placeholders', () => {
    assert.equal(renderTemplate('[{{.alert.owner}}][{{.result.missing}}][{{.result.empty}}][{{.nothing}}]', notification), '[][][][]');
    assert.equal(renderTemplate('{{name}} {{ }} {{.alert.name', notification), '{{name}} {{ }} {{.alert.name');
    assert.equal(lookup('.alert.constructor', notification), undefined, 'only own fields');
    assert.equal(lookup('.result.toString', notification), undefined);
  });

  it("never shows the alert's channels, whose config holds other receivers' secrets", () => {
    const withChannels: Notification = {
      ...notification,
      alert: { ...notification.alert, channels: [{ type: 'ops_alert', config: { api_key: 'secret' } }] },
    };
    assert.equal(renderTemplate('[{{.alert.channels}}]', withChannels), '[]');
    assert.equal(renderTemplate('{{.alert.name}}', withChannels), 'errors up');
  });

  it('has a built-in default message naming the alert, time, first column and query', () => {
    assert.equal(
      defaultMessage(notification),
      `[Trawl] alert "errors up" triggered at 2026-11-27T08:00:00.000Z: count() = 42 (query: ${notification.alert.q})`,
    );
    assert.equal(
      defaultMessage({ ...notification, result: {} }),
      `[Trawl] alert "errors up" triggered at 2026-11-27T08:00:00.000Z (query: ${notification.alert.q})`,
    );
  });

  it('a template without placeholders is its own rendering, and rendering never throws (fuzzed)', () => {
    const anyNotification = fc.record({
      alert: fc.record({ id: fc.string(), name: fc.string(), q: fc.string(), interval: fc.string() }),
      result: fc.dictionary(fc.string(), fc.jsonValue()),
      timestamp: fc.string(),
    });
    fc.assert(
      fc.property(fc.string(), anyNotification, (template, fired) => {
        const rendered = renderTemplate(template, fired);
        if (!template.includes('{{')) assert.equal(rendered, template);
        assert.equal(typeof defaultMessage(fired), 'string');
      }),
      { numRuns: 2000 },
    );
  });

  it('fills each placeholder with its value wherever it stands (fuzzed)', () => {
    const plain = fc.string().filter((text) => !text.includes('{{') && !text.includes('}}') && !text.includes('{') && !text.includes('}'));
    fc.assert(
      fc.property(
        plain,
        plain,
        fc.string({ minLength: 1 }).filter((column) => !/[{}]/.test(column) && column.trim() === column),
        fc.jsonValue(),
        (before, after, column, value) => {
          const fired: Notification = { ...notification, result: { [column]: value } };
          assert.equal(renderTemplate(`${before}{{.result.${column}}}${after}`, fired), `${before}${valueText(value)}${after}`);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
