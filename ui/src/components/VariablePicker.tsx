/** A dashboard variable as a dropdown: a field's values (GET /fields/{name}/values) or a custom list. */
import { useEffect, useState } from 'preact/hooks';
import { json, queryString } from '../lib/api';
import type { Variable } from '../lib/dashboard';

interface Props {
  variable: Variable;
  value: string;
  onChange: (value: string) => void;
}

export function VariablePicker({ variable, value, onChange }: Props) {
  const [choices, setChoices] = useState<string[]>(variable.type === 'custom' ? (variable.values ?? []) : []);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (variable.type !== 'field_values') return;
    json<{ values: { value: unknown }[] }>(`/fields/${encodeURIComponent(variable.field)}/values${queryString({ limit: 100 })}`).then(
      (data) => {
        const found = data.values.map((entry) => String(entry.value));
        setChoices(found);
        // No value chosen yet and no default: the most frequent one.
        if (value === '' && found[0] !== undefined) onChange(found[0]);
      },
      (error: Error) => setProblem(error.message),
    );
  }, [variable.field, variable.type]);

  const options = choices.includes(value) || value === '' ? choices : [value, ...choices];
  return (
    <label class="variable">
      {variable.label ?? variable.name}
      <select value={value} onChange={(event) => onChange((event.target as HTMLSelectElement).value)} title={problem ?? undefined}>
        {options.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}
