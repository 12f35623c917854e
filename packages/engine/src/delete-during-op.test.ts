/**
 * Deleting a variable from inside a running op (a finalizer run by a forced GC while a kernel
 * allocates scratch space) must not free its storage before the op returns: an op run at once by
 * the `async` fast path registered no access on its inputs, so they look idle.
 */
import { cpu } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';
import { FnProperty } from './fn-property.js';

describe('deleteVariable inside a running op', () => {
  for (const kind of ['threaded', 'naive'] as const) {
    it(`${kind}: the delete function runs after the op, not during it`, async () => {
      const engine = createEngine({ kind });
      const input = engine.newVariable();
      const out = engine.newVariable();
      const events: string[] = [];
      engine.pushSync(
        () => {
          events.push('op starts');
          engine.deleteVariable(() => events.push('input freed'), cpu(), input);
          events.push('op reads its input');
        },
        cpu(),
        [input],
        [out],
        { name: 'kernel', prop: FnProperty.async },
      );
      await engine.waitForAll();
      expect(events).toEqual(['op starts', 'op reads its input', 'input freed']);
      // Outside any op the fast path still frees at once.
      const idle = engine.newVariable();
      let freed = false;
      engine.deleteVariable(
        () => {
          freed = true;
        },
        cpu(),
        idle,
      );
      if (kind === 'threaded') expect(freed).toBe(true);
      await engine.waitForAll();
      expect(freed).toBe(true);
    });
  }
});
