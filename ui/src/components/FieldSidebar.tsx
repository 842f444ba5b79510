/**
 * The fields of the events in range (GET /fields): a click on a name shows it as a column, a
 * click on one of its top values adds `| where <field> = <value>` to the query and runs it.
 */
import { useEffect, useState } from 'preact/hooks';
import { json, MissingEndpoint, queryString } from '../lib/api';
import type { TimeRange } from '../lib/time-range';

export interface FieldDescriptor {
  name: string;
  type: string;
  count: number;
  coverage: number;
  top_values?: { value: unknown; count: number }[];
}

interface Props {
  range: TimeRange;
  /** Changes when a query ran: the fields are read again. */
  version: number;
  chosen: readonly string[];
  onToggle: (name: string) => void;
  onWhere: (name: string, value: unknown) => void;
}

export function FieldSidebar({ range, version, chosen, onToggle, onWhere }: Props) {
  const [fields, setFields] = useState<FieldDescriptor[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [opened, setOpened] = useState<string | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    json<{ fields: FieldDescriptor[] }>(`/fields${queryString({ from: range.from, to: range.to })}`, 'GET', undefined, abort.signal)
      .then((data) => {
        setFields(data.fields.filter((field) => field.name !== '_time'));
        setProblem(null);
      })
      .catch((error: Error) => {
        if (abort.signal.aborted) return;
        setProblem(error instanceof MissingEndpoint ? 'This server has no field discovery (GET /fields).' : error.message);
      });
    return () => abort.abort();
  }, [range.from, range.to, version]);

  return (
    <aside class="field-sidebar" aria-label="Fields">
      <h2>Fields</h2>
      {problem !== null && <p class="notice">{problem}</p>}
      <ul>
        {fields.map((field) => (
          <li key={field.name}>
            <div class="field-row">
              <button
                class="link"
                aria-expanded={opened === field.name}
                onClick={() => setOpened(opened === field.name ? null : field.name)}
                title={`${field.type}, in ${Math.round(field.coverage * 100)}% of events`}
              >
                {field.name}
              </button>
              <label class="field-column">
                <input type="checkbox" checked={chosen.includes(field.name)} onChange={() => onToggle(field.name)} />
                <span class="sr-only">show {field.name} as a column</span>
              </label>
              <span class="muted">{field.count.toLocaleString('en-US')}</span>
            </div>
            {opened === field.name && (
              <ul class="top-values" aria-label={`Top values of ${field.name}`}>
                {(field.top_values ?? []).length === 0 && <li class="muted">no top values kept</li>}
                {(field.top_values ?? []).map((top) => (
                  <li key={String(top.value)}>
                    <button
                      class="link"
                      onClick={() => onWhere(field.name, top.value)}
                      title={`add: where ${field.name} = ${String(top.value)}`}
                    >
                      {String(top.value)}
                    </button>
                    <span class="muted">{top.count.toLocaleString('en-US')}</span>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </aside>
  );
}
