/** The API token, kept for this browser tab only (sessionStorage): closing the tab forgets it. */
const KEY = 'trawl.token';

export function readToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
