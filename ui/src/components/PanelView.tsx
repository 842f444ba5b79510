/** One dashboard panel: its query run with the chosen variable values, drawn as its type says. */
import { useEffect, useState } from 'preact/hooks';
import { json } from '../lib/api';
import type { Panel } from '../lib/dashboard';
import { cellText, count } from '../lib/format';
import { type Aggregate, statValue } from './chart-data';
import { DataChart } from './DataChart';
import { problemText } from './Notice';

type Result = { type: 'events'; events: Record<string, unknown>[] } | ({ type: 'aggregate' } & Aggregate);

/** An events result as a table of its fields (`_time`, `_raw` first). */
function asTable(result: Result): Aggregate {
  if (result.type === 'aggregate') return result;
  const names = [...new Set(result.events.flatMap((event) => Object.keys(event)))];
  names.sort((a, b) => (a === '_time' ? -1 : b === '_time' ? 1 : a === '_raw' ? -1 : b === '_raw' ? 1 : 0));
  return { columns: names, rows: result.events.map((event) => names.map((name) => event[name])) };
}

/** What a panel shows: its error, its wait, or its result drawn as its type says. */
function PanelBody({ panel, result, problem }: { panel: Panel; result: Result | null; problem: string | null }) {
  if (problem !== null) return <p class="notice notice-error">{problem}</p>;
  if (result === null) return <p class="muted">Loading…</p>;
  if (panel.type === 'stat') {
    const value = result.type === 'aggregate' ? statValue(result) : result.events.length;
    return (
      <div class="stat" data-testid="stat-value">
        {value === null ? '–' : count(value)}
      </div>
    );
  }
  if (panel.type === 'table') {
    const table = asTable(result);
    return (
      <div class="panel-table">
        <table>
          <thead>
            <tr>
              {table.columns.map((column) => (
                <th key={column}>{column}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((row, index) => (
              <tr key={index}>
                {row.map((value, column) => (
                  <td key={column}>{cellText(value)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  if (result.type === 'events') return <p class="muted">A {panel.type} panel draws an aggregate: add `stats` to its query.</p>;
  return <DataChart result={result} kind={panel.type} label={`${panel.type} chart: ${panel.title}`} />;
}

interface Props {
  panel: Panel;
  variables: Record<string, string>;
  /** Changes on each refresh tick. */
  tick: number;
}

export function PanelView({ panel, variables, tick }: Props) {
  const [result, setResult] = useState<Result | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const variablesKey = JSON.stringify(variables);

  useEffect(() => {
    const abort = new AbortController();
    json<Result>('/query', 'POST', { q: panel.q, from: panel.from ?? '-1h', variables, limit: 1000 }, abort.signal).then(
      (answer) => {
        setResult(answer);
        setProblem(null);
      },
      (error) => !abort.signal.aborted && setProblem(problemText(error, 'query endpoint (POST /query)')),
    );
    return () => abort.abort();
  }, [panel.q, panel.from, variablesKey, tick]);

  const { x, y, w, h } = panel.position;
  return (
    <section
      class="panel"
      style={{ gridColumn: `${x + 1} / span ${w}`, gridRow: `${y + 1} / span ${Math.max(h, 1)}` }}
      aria-label={panel.title}
      data-panel-id={panel.id}
    >
      <h3>{panel.title.replace(/\$([A-Za-z0-9_]+)/g, (whole, name: string) => variables[name] ?? whole)}</h3>
      <div class="panel-body">
        <PanelBody panel={panel} result={result} problem={problem} />
      </div>
    </section>
  );
}
