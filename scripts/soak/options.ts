/** What a soak run is asked to do (`npm run soak` flags; DEFAULT_SOAK in soak.ts fills the rest). */
import type { RssBounds } from './resources';

export interface SoakOptions {
  minutes: number;
  writers: number;
  queryLoops: number;
  /** False: no faults, a baseline in which every check must hold on any build. */
  faults: boolean;
  seed: number;
  rss: RssBounds;
  /** Progress lines while it runs. */
  log: (line: string) => void;
}
