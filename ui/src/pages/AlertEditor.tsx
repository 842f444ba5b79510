/**
 * An alert's editor: name, query, interval, enabled, and its channels, each with the form of its
 * type, checked as the API checks them before saving. A saved alert has "Dry run" (what a check
 * now would do, nothing sent) and "Test channels" (a [TEST] notification to each enabled channel).
 */
import { useEffect, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { json } from '../lib/api';
import { type Channel, CHANNEL_TYPES, channelConfig, formText } from '../lib/channels';
import { navigate } from '../lib/router';
import type { Alert } from './AlertsPage';

interface ChannelForm {
  type: string;
  name: string;
  enabled: boolean;
  texts: Record<string, string>;
}

const INTERVALS = ['30s', '1m', '2m', '5m', '15m', '1h'];

function toForm(channel: Channel): ChannelForm {
  const fields = CHANNEL_TYPES[channel.type] ?? [];
  return {
    type: channel.type,
    name: channel.name ?? '',
    enabled: channel.enabled !== false,
    texts: Object.fromEntries(fields.map((field) => [field.name, formText(channel.config[field.name], field.kind)])),
  };
}

export function AlertEditor({ id }: { id: string | null }) {
  const [loaded, setLoaded] = useState(id === null);
  const [name, setName] = useState('');
  const [q, setQ] = useState('from * | where level = "error" | stats count() as n');
  const [interval, setAlertInterval] = useState('1m');
  const [enabled, setEnabled] = useState(true);
  const [channels, setChannels] = useState<ChannelForm[]>([{ type: 'webhook', name: '', enabled: true, texts: {} }]);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [answer, setAnswer] = useState<{ title: string; body: unknown } | null>(null);

  useEffect(() => {
    if (id === null) return;
    json<Alert>(`/alerts/${encodeURIComponent(id)}`).then(
      (alert) => {
        setName(alert.name);
        setQ(alert.q);
        setAlertInterval(alert.interval);
        setEnabled(alert.enabled);
        setChannels(alert.channels.map(toForm));
        setLoaded(true);
      },
      (error) => setProblem(problemText(error, 'alerts (/alerts)')),
    );
  }, [id]);
  if (!loaded) return problem === null ? <p class="muted">Loading…</p> : <Notice text={problem} kind="error" />;

  const setChannel = (index: number, patch: Partial<ChannelForm>) =>
    setChannels(channels.map((channel, at) => (at === index ? { ...channel, ...patch } : channel)));

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const built: Channel[] = [];
    for (const [index, channel] of channels.entries()) {
      const made = channelConfig(channel.type, channel.texts, index);
      if ('problem' in made) return setProblem(made.problem);
      built.push({
        type: channel.type,
        ...(channel.name.trim() === '' ? {} : { name: channel.name.trim() }),
        enabled: channel.enabled,
        config: made.config,
      });
    }
    if (built.length === 0) return setProblem('channels must hold at least one channel');
    const body = { name, q, interval, enabled, channels: built };
    try {
      const stored = await json<Alert>(id === null ? '/alerts' : `/alerts/${encodeURIComponent(id)}`, id === null ? 'POST' : 'PUT', body);
      setProblem(null);
      setSaved('Saved.');
      if (id === null) navigate(['alerts', stored.id]);
    } catch (error) {
      setProblem(problemText(error, 'alerts (/alerts)'));
    }
  };
  const probe = async (action: 'test' | 'test-channels', title: string) => {
    setAnswer({ title, body: 'running…' });
    try {
      setAnswer({ title, body: await json(`/alerts/${encodeURIComponent(id!)}/${action}`, 'POST') });
    } catch (error) {
      setAnswer({ title, body: problemText(error, `${title.toLowerCase()} (POST /alerts/{id}/${action})`) });
    }
  };
  const remove = async () => {
    if (id === null || !confirm(`Delete the alert "${name}"?`)) return;
    try {
      await json(`/alerts/${encodeURIComponent(id)}`, 'DELETE');
      navigate(['alerts']);
    } catch (error) {
      setProblem(problemText(error, 'alerts (/alerts)'));
    }
  };
  const value = (handler: (text: string) => void) => (event: Event) => handler((event.target as HTMLInputElement).value);

  return (
    <div class="alert-editor">
      <form class="editor" onSubmit={save} noValidate>
        <h1>{id === null ? 'New alert' : `Alert ${name}`}</h1>
        <label>
          Name
          <input required value={name} onInput={value(setName)} />
        </label>
        <label>
          Query
          <textarea required rows={3} value={q} onInput={value(setQ)} />
        </label>
        <div class="row">
          <label>
            Interval
            <input list="alert-intervals" required value={interval} onInput={value(setAlertInterval)} size={6} />
            <datalist id="alert-intervals">
              {INTERVALS.map((each) => (
                <option key={each} value={each} />
              ))}
            </datalist>
          </label>
          <label>
            <input type="checkbox" checked={enabled} onChange={(event) => setEnabled((event.target as HTMLInputElement).checked)} /> Enabled
          </label>
        </div>
        <h2>Channels</h2>
        {channels.map((channel, index) => (
          <fieldset key={index} class="channel-form">
            <legend>
              Channel {index + 1}: {channel.type}
            </legend>
            <div class="row">
              <label>
                Type
                <select value={channel.type} onChange={value((type) => setChannel(index, { type, texts: {} }))}>
                  {Object.keys(CHANNEL_TYPES).map((type) => (
                    <option key={type} value={type}>
                      {type}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Channel name
                <input value={channel.name} onInput={value((text) => setChannel(index, { name: text }))} />
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={channel.enabled}
                  onChange={(event) => setChannel(index, { enabled: (event.target as HTMLInputElement).checked })}
                />{' '}
                Enabled
              </label>
            </div>
            {(CHANNEL_TYPES[channel.type] ?? []).map((field) => (
              <label key={field.name}>
                {field.name}
                {field.required ? ' (required)' : ''}
                {field.kind === 'enum' ? (
                  <select
                    value={channel.texts[field.name] ?? ''}
                    onChange={value((text) => setChannel(index, { texts: { ...channel.texts, [field.name]: text } }))}
                  >
                    <option value="">{field.required ? 'choose' : 'default'}</option>
                    {field.choices!.map((choice) => (
                      <option key={choice} value={choice}>
                        {choice}
                      </option>
                    ))}
                  </select>
                ) : field.kind === 'template' ? (
                  <textarea
                    rows={2}
                    value={channel.texts[field.name] ?? ''}
                    onInput={value((text) => setChannel(index, { texts: { ...channel.texts, [field.name]: text } }))}
                  />
                ) : (
                  <input
                    name={field.name}
                    placeholder={field.placeholder ?? (field.kind === 'headers' ? '{"X-Key": "value"}' : '')}
                    value={channel.texts[field.name] ?? ''}
                    onInput={value((text) => setChannel(index, { texts: { ...channel.texts, [field.name]: text } }))}
                  />
                )}
              </label>
            ))}
            <button type="button" onClick={() => setChannels(channels.filter((_, at) => at !== index))}>
              Remove channel
            </button>
          </fieldset>
        ))}
        <button type="button" onClick={() => setChannels([...channels, { type: 'webhook', name: '', enabled: true, texts: {} }])}>
          Add channel
        </button>
        {problem !== null && <Notice text={problem} kind="error" />}
        {saved !== null && <Notice text={saved} />}
        <div class="row">
          <button type="submit" class="primary">
            Save
          </button>
          {id !== null && (
            <>
              <button type="button" onClick={() => probe('test', 'Dry run')}>
                Dry run
              </button>
              <button type="button" onClick={() => probe('test-channels', 'Test channels')}>
                Test channels
              </button>
              <button type="button" onClick={remove}>
                Delete
              </button>
            </>
          )}
        </div>
      </form>
      {answer !== null && (
        <section class="probe-answer" aria-label={answer.title} aria-live="polite">
          <h2>{answer.title}</h2>
          <ProbeAnswer body={answer.body} />
        </section>
      )}
    </div>
  );
}

/** A dry run's or a channel test's answer, its verdict first, then the whole answer as JSON. */
function ProbeAnswer({ body }: { body: unknown }) {
  if (typeof body === 'string') return <p>{body}</p>;
  const data = body as {
    would_trigger?: boolean;
    message?: string;
    results?: { type: string; name?: string; status: string; error?: string }[];
  };
  return (
    <>
      {data.would_trigger !== undefined && (
        <p data-testid="dry-run-verdict">
          <strong>{data.would_trigger ? 'Would trigger' : 'Would not trigger'}</strong>
          {data.message ? `: ${data.message}` : ''}
        </p>
      )}
      {data.results !== undefined && (
        <ul>
          {data.results.map((result, index) => (
            <li key={index}>
              {result.name ?? result.type}: <span class={`status status-${result.status}`}>{result.status}</span> {result.error ?? ''}
            </li>
          ))}
        </ul>
      )}
      <pre>{JSON.stringify(body, null, 2)}</pre>
    </>
  );
}
