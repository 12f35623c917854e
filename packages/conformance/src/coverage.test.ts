import { createOpRegistry } from '@mx/ops';
import { expect, it } from 'vitest';
import { loadCases } from './load.js';

it('every core operator has golden cases (add them to tools/golden/ops/<family>.py with a new op)', () => {
  const registry = createOpRegistry();
  const covered = new Set(loadCases().map((c) => registry.get(c.op).name));
  const missing = registry
    .list()
    .map((o) => o.name)
    .filter((n) => !covered.has(n));
  expect(missing).toEqual([]);
});
