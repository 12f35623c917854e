/**
 * `loadCases` / `listFamilies`: the decoded golden cases, optionally for some families only.
 * Cases are decoded on every call (cheap next to running them), so callers own what they get and
 * nothing is cached at module level.
 */
import { MXNetError } from '@mx/base';
import { decodeFile } from './decode.js';
import { GOLDEN_FILES } from './golden.js';
import type { ConformanceCase } from './types.js';

/** Names of the operator families with golden cases, sorted. */
export function listFamilies(): string[] {
  return Object.keys(GOLDEN_FILES).sort();
}

/**
 * The golden cases of `family` (a name or several), or of every family when omitted. Throws for an
 * unknown family, listing the known ones.
 */
export function loadCases(family?: string | readonly string[]): ConformanceCase[] {
  const names = family === undefined ? listFamilies() : typeof family === 'string' ? [family] : [...family];
  const out: ConformanceCase[] = [];
  for (const name of names) {
    const file = GOLDEN_FILES[name];
    if (file === undefined) {
      throw new MXNetError(`no golden cases for family '${name}'`, {
        op: 'loadCases',
        hint: `known families: ${listFamilies().join(', ')}`,
      });
    }
    out.push(...decodeFile(file));
  }
  return out;
}
