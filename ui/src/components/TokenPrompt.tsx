/**
 * The token prompt, shown when an API call answers 401: the token is kept in sessionStorage (this
 * tab only) and the call is tried again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { setTokenAsker } from '../lib/api';
import { saveToken } from '../lib/token';

type Pending = (token: string | null) => void;

export function TokenPrompt() {
  const [waiting, setWaiting] = useState<Pending[]>([]);
  const [token, setToken] = useState('');
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    setTokenAsker(() => new Promise((resolve) => setWaiting((now) => [...now, resolve])));
  }, []);
  useEffect(() => {
    if (waiting.length > 0) input.current?.focus();
  }, [waiting.length > 0]);
  if (waiting.length === 0) return null;

  const answer = (value: string | null) => {
    if (value !== null) saveToken(value);
    for (const resolve of waiting) resolve(value);
    setWaiting([]);
    setToken('');
  };
  return (
    <div class="modal-backdrop" role="dialog" aria-modal="true" aria-labelledby="token-title">
      <form
        class="modal"
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim() !== '') answer(token.trim());
        }}
        onKeyDown={(event) => event.key === 'Escape' && answer(null)}
      >
        <h2 id="token-title">This server needs an API token</h2>
        <p class="muted">It is kept for this tab only, and sent as Authorization: Bearer.</p>
        <input
          ref={input}
          type="password"
          aria-label="API token"
          autoComplete="off"
          value={token}
          onInput={(event) => setToken((event.target as HTMLInputElement).value)}
        />
        <div class="row">
          <button type="submit" class="primary">
            Use token
          </button>
          <button type="button" onClick={() => answer(null)}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
