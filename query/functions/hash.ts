// md5(s) / sha256(s): lowercase hex digests of the UTF-8 text (node's one-shot crypto.hash, no Hash
// object per row). Non-strings hash their text (numbers in JS form, times as ISO 8601); null is null.

import { hash } from 'crypto';
import { fn, isTimeArg, textOf } from './common';
import type { ScalarFactory, ScalarFamily } from './types';

function digest(algorithm: 'md5' | 'sha256'): ScalarFactory {
  return (site) => {
    const time = isTimeArg(site, 0);
    return fn('string', (args) => {
      const s = textOf(args[0]!, time);
      return s === null ? null : hash(algorithm, s, 'hex');
    });
  };
}

export const HASH_FUNCTIONS = {
  md5: { min: 1, max: 1, signature: 'md5(s)', aliases: ['hash_md5'], factory: digest('md5') },
  sha256: { min: 1, max: 1, signature: 'sha256(s)', aliases: ['hash_sha256'], factory: digest('sha256') },
} satisfies ScalarFamily;
