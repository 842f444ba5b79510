/**
 * The time range: a preset (relative to now), or typed bounds, relative (`-2h`, `now`) or absolute
 * (ISO 8601). A bound the API would refuse is marked and not applied.
 */
import { useEffect, useState } from 'preact/hooks';
import { isValidBound, PRESETS, type TimeRange } from '../lib/time-range';

interface Props {
  range: TimeRange;
  onChange: (range: TimeRange) => void;
}

export function TimeRangePicker({ range, onChange }: Props) {
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  useEffect(() => {
    setFrom(range.from);
    setTo(range.to);
  }, [range.from, range.to]);

  const preset = range.to === 'now' ? (PRESETS.find((each) => each.from === range.from)?.from ?? '') : '';
  const apply = (event: Event) => {
    event.preventDefault();
    if (isValidBound(from) && isValidBound(to)) onChange({ from, to });
  };

  return (
    <form class="time-range" onSubmit={apply} aria-label="Time range">
      <select
        aria-label="Preset range"
        value={preset}
        onChange={(event) => {
          const chosen = (event.target as HTMLSelectElement).value;
          if (chosen !== '') onChange({ from: chosen, to: 'now' });
        }}
      >
        <option value="">Custom</option>
        {PRESETS.map((each) => (
          <option key={each.from} value={each.from}>
            {each.label}
          </option>
        ))}
      </select>
      <label>
        From
        <input
          name="from"
          value={from}
          aria-invalid={!isValidBound(from)}
          onInput={(event) => setFrom((event.target as HTMLInputElement).value.trim())}
          size={24}
        />
      </label>
      <label>
        To
        <input
          name="to"
          value={to}
          aria-invalid={!isValidBound(to)}
          onInput={(event) => setTo((event.target as HTMLInputElement).value.trim())}
          size={24}
        />
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}
