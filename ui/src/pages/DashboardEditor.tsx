/**
 * A dashboard's editor: its name, variables and panels (type, query, range start, grid position),
 * saved whole (POST for a new one, PUT for a change); the API's refusal names the field to fix.
 */
import { useEffect, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { json } from '../lib/api';
import { type Dashboard, type Panel, PANEL_TYPES, type PanelType, type Variable } from '../lib/dashboard';
import { navigate } from '../lib/router';

const BLANK: Dashboard = { id: '', name: '', panels: [], variables: [] };

function newPanel(panels: Panel[]): Panel {
  const bottom = panels.reduce((lowest, panel) => Math.max(lowest, panel.position.y + panel.position.h), 0);
  let n = panels.length + 1;
  while (panels.some((panel) => panel.id === `p${n}`)) n++;
  return {
    id: `p${n}`,
    title: `Panel ${n}`,
    type: 'timechart',
    q: 'from * | stats count() by bin(_time, 1m)',
    from: '-1h',
    position: { x: 0, y: bottom, w: 6, h: 4 },
  };
}

export function DashboardEditor({ id }: { id: string | null }) {
  const [dashboard, setDashboard] = useState<Dashboard | null>(id === null ? BLANK : null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (id === null) return;
    json<Dashboard>(`/dashboards/${encodeURIComponent(id)}`).then(setDashboard, (error) =>
      setProblem(problemText(error, 'dashboards (/dashboards)')),
    );
  }, [id]);
  if (dashboard === null) return problem === null ? <p class="muted">Loading…</p> : <Notice text={problem} kind="error" />;

  const change = (patch: Partial<Dashboard>) => setDashboard({ ...dashboard, ...patch });
  const panels = dashboard.panels;
  const variables = dashboard.variables ?? [];
  const setPanel = (index: number, patch: Partial<Panel>) =>
    change({ panels: panels.map((panel, at) => (at === index ? { ...panel, ...patch } : panel)) });
  const setVariable = (index: number, patch: Partial<Variable>) =>
    change({ variables: variables.map((variable, at) => (at === index ? { ...variable, ...patch } : variable)) });

  const save = async (event: Event) => {
    event.preventDefault();
    const body = { name: dashboard.name, panels, variables };
    try {
      const saved = await json<Dashboard>(
        id === null ? '/dashboards' : `/dashboards/${encodeURIComponent(id)}`,
        id === null ? 'POST' : 'PUT',
        body,
      );
      navigate(['dashboards', saved.id]);
    } catch (error) {
      setProblem(problemText(error, 'dashboards (/dashboards)'));
    }
  };
  const remove = async () => {
    if (id === null || !confirm(`Delete the dashboard "${dashboard.name}"?`)) return;
    try {
      await json(`/dashboards/${encodeURIComponent(id)}`, 'DELETE');
      navigate(['dashboards']);
    } catch (error) {
      setProblem(problemText(error, 'dashboards (/dashboards)'));
    }
  };
  const text = (handler: (value: string) => void) => (event: Event) => handler((event.target as HTMLInputElement).value);
  const integer = (handler: (value: number) => void) => (event: Event) => handler(Number((event.target as HTMLInputElement).value));

  return (
    <form class="editor" onSubmit={save}>
      <h1>{id === null ? 'New dashboard' : `Edit ${dashboard.name}`}</h1>
      <label>
        Name
        <input required value={dashboard.name} onInput={text((name) => change({ name }))} />
      </label>
      <h2>Variables</h2>
      {variables.map((variable, index) => (
        <fieldset key={index} class="row">
          <legend>${variable.name || '…'}</legend>
          <label>
            Name
            <input required pattern="[A-Za-z0-9_]+" value={variable.name} onInput={text((name) => setVariable(index, { name }))} />
          </label>
          <label>
            Type
            <select value={variable.type} onChange={text((type) => setVariable(index, { type: type as Variable['type'] }))}>
              <option value="field_values">field_values</option>
              <option value="custom">custom</option>
            </select>
          </label>
          <label>
            Field
            <input required value={variable.field} onInput={text((field) => setVariable(index, { field }))} />
          </label>
          {variable.type === 'custom' && (
            <label>
              Values (comma-separated)
              <input
                value={(variable.values ?? []).join(',')}
                onInput={text((list) =>
                  setVariable(index, {
                    values: list
                      .split(',')
                      .map((each) => each.trim())
                      .filter((each) => each !== ''),
                  }),
                )}
              />
            </label>
          )}
          <label>
            Default
            <input
              value={variable.default ?? ''}
              onInput={text((value) => setVariable(index, { default: value === '' ? undefined : value }))}
            />
          </label>
          <button type="button" onClick={() => change({ variables: variables.filter((_, at) => at !== index) })}>
            Remove
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        onClick={() => change({ variables: [...variables, { name: `var${variables.length + 1}`, type: 'field_values', field: 'host' }] })}
      >
        Add variable
      </button>
      <h2>Panels</h2>
      {panels.map((panel, index) => (
        <fieldset key={index} class="panel-form">
          <legend>{panel.title || panel.id}</legend>
          <div class="row">
            <label>
              Id
              <input required value={panel.id} onInput={text((value) => setPanel(index, { id: value }))} size={8} />
            </label>
            <label>
              Title
              <input required value={panel.title} onInput={text((title) => setPanel(index, { title }))} />
            </label>
            <label>
              Type
              <select value={panel.type} onChange={text((type) => setPanel(index, { type: type as PanelType }))}>
                {PANEL_TYPES.map((type) => (
                  <option key={type} value={type}>
                    {type}
                  </option>
                ))}
              </select>
            </label>
            <label>
              From
              <input value={panel.from ?? '-1h'} onInput={text((from) => setPanel(index, { from }))} size={8} />
            </label>
            {(['x', 'y', 'w', 'h'] as const).map((key) => (
              <label key={key}>
                {key}
                <input
                  type="number"
                  required
                  min={key === 'w' ? 1 : 0}
                  max={key === 'x' ? 11 : key === 'w' ? 12 : undefined}
                  value={panel.position[key]}
                  onInput={integer((value) => setPanel(index, { position: { ...panel.position, [key]: value } }))}
                  style={{ width: '4em' }}
                />
              </label>
            ))}
          </div>
          <label>
            Query
            <textarea required rows={2} value={panel.q} onInput={text((q) => setPanel(index, { q }))} />
          </label>
          <button type="button" onClick={() => change({ panels: panels.filter((_, at) => at !== index) })}>
            Remove panel
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={() => change({ panels: [...panels, newPanel(panels)] })}>
        Add panel
      </button>
      {problem !== null && <Notice text={problem} kind="error" />}
      <div class="row">
        <button type="submit" class="primary">
          Save
        </button>
        {id !== null && (
          <button type="button" onClick={remove}>
            Delete
          </button>
        )}
      </div>
    </form>
  );
}
