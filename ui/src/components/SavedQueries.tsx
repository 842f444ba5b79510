/** Saved queries from the search page: save the current one, open, rename or delete one (/queries). */
import { useEffect, useState } from 'preact/hooks';
import { json } from '../lib/api';
import { Notice, problemText } from './Notice';

export interface SavedQuery {
  id: string;
  name: string;
  q: string;
  from?: string;
}

interface Props {
  q: string;
  from: string;
  onOpen: (saved: SavedQuery) => void;
}

export function SavedQueries({ q, from, onOpen }: Props) {
  const [queries, setQueries] = useState<SavedQuery[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);

  const load = () =>
    json<{ queries: SavedQuery[] }>('/queries')
      .then((data) => {
        setQueries(data.queries);
        setProblem(null);
      })
      .catch((error) => setProblem(problemText(error, 'saved queries (/queries)')));
  useEffect(() => void load(), []);

  const act = (work: Promise<unknown>) => work.then(load, (error) => setProblem(problemText(error, 'saved queries (/queries)')));

  return (
    <section class="saved-queries" aria-label="Saved queries">
      <h2>Saved queries</h2>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim() === '') return;
          void act(json('/queries', 'POST', { name: name.trim(), q, from })).then(() => setName(''));
        }}
      >
        <input
          aria-label="Name of the saved query"
          placeholder="name"
          value={name}
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
        />
        <button type="submit">Save current query</button>
      </form>
      {problem !== null && <Notice text={problem} kind="error" />}
      <ul>
        {queries.map((saved) => (
          <li key={saved.id} class="row">
            {renaming?.id === saved.id ? (
              <form
                class="row"
                onSubmit={(event) => {
                  event.preventDefault();
                  void act(
                    json(`/queries/${saved.id}`, 'PUT', { name: renaming.name, q: saved.q, ...(saved.from ? { from: saved.from } : {}) }),
                  );
                  setRenaming(null);
                }}
              >
                <input
                  aria-label={`New name for ${saved.name}`}
                  value={renaming.name}
                  onInput={(event) => setRenaming({ id: saved.id, name: (event.target as HTMLInputElement).value })}
                />
                <button type="submit">OK</button>
                <button type="button" onClick={() => setRenaming(null)}>
                  Cancel
                </button>
              </form>
            ) : (
              <>
                <button class="link" onClick={() => onOpen(saved)} title={saved.q}>
                  {saved.name}
                </button>
                <button class="small" onClick={() => setRenaming({ id: saved.id, name: saved.name })} aria-label={`Rename ${saved.name}`}>
                  Rename
                </button>
                <button class="small" onClick={() => void act(json(`/queries/${saved.id}`, 'DELETE'))} aria-label={`Delete ${saved.name}`}>
                  Delete
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
