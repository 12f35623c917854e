import { createOpRegistry } from '@mx/ops';
import { expect, it } from 'vitest';
import { CORE_OP_NAMES } from './core-ops.js';

it('core-ops.ts lists exactly the core registry names (run `pnpm --filter @mx/ndarray gen:ops` after adding ops)', () => {
  const names = createOpRegistry()
    .names()
    .filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
  expect([...CORE_OP_NAMES]).toEqual(names);
});
