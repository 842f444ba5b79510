/**
 * Live tail (GET /tail, read with fetch so the token header goes along): the catchup, then each
 * event as it arrives. Pause keeps receiving but holds new events back until resumed; the
 * counter adds the server's dropped events (its heartbeats) to those past the page's own buffer.
 * The list follows new events while scrolled to the bottom, and stops following when the person
 * scrolls up.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Notice, problemText } from '../components/Notice';
import { call, queryString } from '../lib/api';
import { count } from '../lib/format';
import { navigate, type Route } from '../lib/router';
import { readSse } from '../lib/sse';

type TailEvent = Record<string, unknown>;

/** Events the page keeps; older ones leave the list. */
const KEEP = 5000;
/** Events held while paused; beyond that they are dropped and counted. */
const HOLD = 10_000;

export function TailPage({ route }: { route: Route }) {
  const q = route.params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  const [events, setEvents] = useState<TailEvent[]>([]);
  const [phase, setPhase] = useState<'idle' | 'catchup' | 'live' | 'ended'>('idle');
  const [paused, setPaused] = useState(false);
  const [serverDropped, setServerDropped] = useState(0);
  const [pageDropped, setPageDropped] = useState(0);
  const [held, setHeld] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [follow, setFollow] = useState(true);
  const list = useRef<HTMLDivElement>(null);
  const pausedRef = useRef(false);
  const holding = useRef<TailEvent[]>([]);
  pausedRef.current = paused;

  useEffect(() => setDraft(q), [q]);

  useEffect(() => {
    if (q === '') return;
    const abort = new AbortController();
    setEvents([]);
    setServerDropped(0);
    setPageDropped(0);
    setProblem(null);
    setPhase('catchup');
    holding.current = [];
    const take = (event: TailEvent) => {
      if (!pausedRef.current) {
        setEvents((shown) => (shown.length >= KEEP ? [...shown.slice(shown.length - KEEP + 1), event] : [...shown, event]));
      } else if (holding.current.length < HOLD) {
        holding.current.push(event);
        setHeld(holding.current.length);
      } else setPageDropped((n) => n + 1);
    };
    call(`/tail${queryString({ q, count: 100 })}`, { signal: abort.signal, headers: { accept: 'text/event-stream' } })
      .then((response) =>
        readSse(response.body!, ({ event, data }) => {
          const payload = JSON.parse(data);
          if (event === 'result') take(payload);
          else if (event === 'catchup_done') setPhase('live');
          else if (event === 'heartbeat' && typeof payload.dropped === 'number') setServerDropped(payload.dropped);
          else if (event === 'error') setProblem(String(payload.message ?? data));
        }),
      )
      .then(() => !abort.signal.aborted && setPhase('ended'))
      .catch((error) => {
        if (abort.signal.aborted) return;
        setPhase('ended');
        setProblem(problemText(error, 'live tail (GET /tail)'));
      });
    return () => abort.abort();
  }, [q]);

  // Follow the newest event while the person has not scrolled up.
  useEffect(() => {
    if (follow && list.current !== null) list.current.scrollTop = list.current.scrollHeight;
  }, [events, follow]);

  const resume = () => {
    const waiting = holding.current;
    holding.current = [];
    setHeld(0);
    setEvents((shown) => [...shown, ...waiting].slice(-KEEP));
    setPaused(false);
  };

  return (
    <div class="tail-page">
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(['tail'], { q: draft.trim() });
        }}
      >
        <input
          class="grow"
          aria-label="Tail query"
          placeholder='where level = "error"'
          value={draft}
          onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary">
          Start
        </button>
        <button type="button" disabled={phase === 'idle'} onClick={() => (paused ? resume() : setPaused(true))} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </form>
      <p class="row tail-status" role="status">
        <span data-testid="tail-phase">
          {phase === 'idle'
            ? 'Not started'
            : phase === 'catchup'
              ? 'Catching up…'
              : phase === 'live'
                ? paused
                  ? `Paused (${count(held)} waiting)`
                  : 'Live'
                : 'Ended'}
        </span>
        <span data-testid="tail-count">{count(events.length)} events</span>
        <span data-testid="tail-dropped">{count(serverDropped + pageDropped)} dropped</span>
        {!follow && (
          <button class="small" onClick={() => setFollow(true)}>
            Follow new events
          </button>
        )}
      </p>
      {problem !== null && <Notice text={problem} kind="error" />}
      <div
        class="tail-list"
        ref={list}
        role="log"
        aria-label="Tailed events"
        tabIndex={0}
        onScroll={(event) => {
          const box = event.target as HTMLDivElement;
          setFollow(box.scrollHeight - box.scrollTop - box.clientHeight < 24);
        }}
      >
        {events.map((event, index) => (
          <div key={index} class="tail-row">
            <span class="muted">{String(event._time ?? '')}</span> {String(event._raw ?? JSON.stringify(event))}
          </div>
        ))}
      </div>
    </div>
  );
}
