/**
 * Search: the query editor, the time range, the histogram (drag to zoom), the fields, and the
 * results as a table of events (each opening as JSON) or an aggregate table and chart. The address
 * holds the query, the range, the chosen columns and the row limit, so a view can be shared.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { DataChart } from '../components/DataChart';
import { FieldSidebar } from '../components/FieldSidebar';
import { Histogram, type HistogramData } from '../components/Histogram';
import { Notice, problemText } from '../components/Notice';
import { type ParseError, QueryEditor } from '../components/QueryEditor';
import { SavedQueries } from '../components/SavedQueries';
import { TimeRangePicker } from '../components/TimeRangePicker';
import { type Column, VirtualTable } from '../components/VirtualTable';
import { ApiError, json, MissingEndpoint, queryString } from '../lib/api';
import { exportNdjson } from '../lib/export';
import { cellText, count } from '../lib/format';
import { histogramFilter, withWhere } from '../lib/query-text';
import { runSearch, type SearchAnswer } from '../lib/search-query';
import { navigate, type Route } from '../lib/router';
import { DEFAULT_RANGE, type TimeRange } from '../lib/time-range';

type EventRow = Record<string, unknown>;

const DEFAULT_QUERY = 'from *';
const LIMITS = ['100', '1000', '10000', '50000'];

export function SearchPage({ route }: { route: Route }) {
  const q = route.params.get('q') ?? DEFAULT_QUERY;
  const range: TimeRange = { from: route.params.get('from') ?? DEFAULT_RANGE.from, to: route.params.get('to') ?? DEFAULT_RANGE.to };
  const chosen = (route.params.get('fields') ?? '').split(',').filter((name) => name !== '');
  const limit = route.params.get('limit') ?? '1000';

  const [draft, setDraft] = useState(q);
  const [runs, setRuns] = useState(0);
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [parseError, setParseError] = useState<ParseError | null>(null);
  const [histogram, setHistogram] = useState<HistogramData | null>(null);
  const [histogramProblem, setHistogramProblem] = useState<string | null>(null);
  const [exported, setExported] = useState<string | null>(null);
  useEffect(() => setDraft(q), [q]);

  const show = (changes: Record<string, string>, replace = false) => {
    const params: Record<string, string> = { q, from: range.from, to: range.to, limit, fields: chosen.join(','), ...changes };
    // No chosen field: no `fields` in the address.
    if (params.fields === '') delete params.fields;
    navigate(['search'], params, replace);
  };
  const run = (text = draft, changes: Record<string, string> = {}) => {
    if (text === q && Object.entries(changes).every(([key, value]) => route.params.get(key) === value)) setRuns((n) => n + 1);
    else show({ q: text, ...changes });
  };

  // The query and the histogram, each time the address or a run asks.
  useEffect(() => {
    const abort = new AbortController();
    setRunning(true);
    setProblem(null);
    setParseError(null);
    runSearch(q, range, Number(limit), abort.signal)
      .then(setAnswer)
      .catch((error) => {
        if (abort.signal.aborted) return;
        setAnswer(null);
        const position = error instanceof ApiError ? error.position : null;
        if (position !== null) setParseError({ message: error.message, ...position });
        setProblem(problemText(error, 'query endpoint (POST /query)'));
      })
      .finally(() => !abort.signal.aborted && setRunning(false));

    const filter = histogramFilter(q);
    json<HistogramData>(
      `/histogram${queryString({ q: filter === '' ? undefined : filter, from: range.from, to: range.to })}`,
      'GET',
      undefined,
      abort.signal,
    )
      .then((data) => {
        setHistogram(data);
        setHistogramProblem(null);
      })
      .catch((error) => {
        if (abort.signal.aborted) return;
        setHistogram(null);
        setHistogramProblem(error instanceof MissingEndpoint ? 'This server has no histogram (GET /histogram).' : null);
      });
    return () => abort.abort();
  }, [q, range.from, range.to, limit, runs]);

  const result = answer?.result ?? null;
  const columns = useMemo<Column<EventRow>[]>(
    () => [
      { key: '_time', label: '_time', value: (row) => cellText(row._time), width: '210px' },
      ...chosen.map((name) => ({ key: name, label: name, value: (row: EventRow) => cellText(row[name]), width: 'minmax(90px, 160px)' })),
      { key: '_raw', label: '_raw', value: (row) => cellText(row._raw), width: 'minmax(200px, 1fr)' },
    ],
    [chosen.join(',')],
  );

  return (
    <div class="search-page">
      <div class="search-bar">
        <QueryEditor value={q} onChange={setDraft} onRun={(text) => run(text)} error={parseError} />
        <div class="row">
          <button class="primary" onClick={() => run()} title="Run (Ctrl+Enter)">
            Run
          </button>
          <TimeRangePicker range={range} onChange={(next) => run(draft, { from: next.from, to: next.to })} />
          <label>
            Rows
            <select value={limit} onChange={(event) => run(draft, { limit: (event.target as HTMLSelectElement).value })}>
              {LIMITS.map((each) => (
                <option key={each} value={each}>
                  {count(Number(each))}
                </option>
              ))}
            </select>
          </label>
          <button
            onClick={() =>
              exportNdjson(q, range).then(
                (n) => setExported(`Exported ${count(n)} events as NDJSON.`),
                (error) => setExported(problemText(error, 'export (POST /query/stream)')),
              )
            }
          >
            Export NDJSON
          </button>
        </div>
      </div>
      {parseError !== null && (
        <p class="notice notice-error" role="alert" data-testid="parse-error">
          Line {parseError.line}, column {parseError.column}: {parseError.message}
          {parseError.suggestion !== '' && (
            <>
              {' '}
              Suggestion: <code>{parseError.suggestion}</code>
            </>
          )}
        </p>
      )}
      {parseError === null && problem !== null && <Notice text={problem} kind="error" />}
      {exported !== null && <Notice text={exported} />}
      <div class="search-body">
        <div class="search-side">
          <FieldSidebar
            range={range}
            version={runs}
            chosen={chosen}
            onToggle={(name) =>
              show({ fields: chosen.includes(name) ? chosen.filter((each) => each !== name).join(',') : [...chosen, name].join(',') }, true)
            }
            onWhere={(name, value) => run(withWhere(q, name, value))}
          />
          <SavedQueries q={q} from={range.from} onOpen={(saved) => run(saved.q, saved.from ? { from: saved.from, to: 'now' } : {})} />
        </div>
        <div class="search-results">
          {histogramProblem !== null && <Notice text={histogramProblem} />}
          {histogram !== null && <Histogram data={histogram} onZoom={(zoomed) => run(draft, { from: zoomed.from, to: zoomed.to })} />}
          <p class="result-count" role="status" data-testid="result-count" aria-busy={running}>
            {running ? 'Running…' : answer === null ? '' : resultCount(answer, Number(limit))}
          </p>
          {result?.type === 'events' && (
            <VirtualTable
              key={`${q} ${range.from} ${range.to} ${runs}`}
              rows={result.events}
              columns={columns}
              detail={(row) => JSON.stringify(row, null, 2)}
              label="Events"
            />
          )}
          {result?.type === 'aggregate' && <AggregateView result={result} />}
        </div>
      </div>
    </div>
  );
}

/** What the result holds, and whether more would match with a higher row limit. */
function resultCount({ result, headed }: SearchAnswer, limit: number): string {
  if (result.type === 'aggregate') return `${count(result.rows.length)} rows${result.has_more ? ' (more rows: raise the row limit)' : ''}`;
  const more = result.has_more || (headed && result.events.length >= limit);
  return `${count(result.events.length)} events${more ? ' (the newest; more match: raise the row limit)' : ''}`;
}

function AggregateView({ result }: { result: { columns: string[]; rows: unknown[][] } }) {
  const [kind, setKind] = useState<'bar' | 'line' | 'pie'>('bar');
  const columns = result.columns.map((name, index) => ({ key: `${index}`, label: name, value: (row: unknown[]) => cellText(row[index]) }));
  return (
    <div class="aggregate">
      <div class="row">
        <label>
          Chart
          <select value={kind} onChange={(event) => setKind((event.target as HTMLSelectElement).value as 'bar' | 'line' | 'pie')}>
            <option value="bar">bar</option>
            <option value="line">line</option>
            <option value="pie">pie</option>
          </select>
        </label>
      </div>
      <div class="aggregate-chart">
        <DataChart result={result} kind={kind} label="Chart of the aggregate result" />
      </div>
      <VirtualTable rows={result.rows} columns={columns} label="Aggregate rows" height={360} />
    </div>
  );
}
