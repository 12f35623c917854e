/**
 * Back-pressure: the threaded engine runs queued ops from its drain loop once the pusher yields,
 * so a loop that never awaits would queue work without bound. Past MXNET_ENGINE_MAX_PENDING_OPS
 * queued ops a push runs the ready ones itself; below it, pushes return without running anything.
 */
import { cpu, Env, isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import { createEngine } from './create-engine.js';

describe('threaded engine back-pressure', () => {
  it('runs ready ops inside a push once more than the limit are queued', async () => {
    const e = createEngine({ kind: 'threaded', env: new Env({ MXNET_ENGINE_MAX_PENDING_OPS: '8' }) });
    const v = e.newVariable('v');
    let ran = 0;
    for (let i = 0; i < 8; i++) e.pushSync(() => void ran++, cpu(), [], [v]);
    expect(ran).toBe(0); // at the limit: nothing ran yet, as without back-pressure
    e.pushSync(() => void ran++, cpu(), [], [v]);
    expect(ran).toBe(9); // the ninth push drained the queue, in order
    for (let i = 0; i < 100; i++) e.pushSync(() => void ran++, cpu(), [], [v]);
    expect(ran).toBeGreaterThanOrEqual(100);
    await e.waitForAll();
    expect(ran).toBe(109);
  });

  it('checks the setting', () => {
    try {
      createEngine({ kind: 'threaded', env: new Env({ MXNET_ENGINE_MAX_PENDING_OPS: '0' }) });
      expect.unreachable();
    } catch (err) {
      expect(isMXNetError(err)).toBe(true);
      expect(String(err)).toContain('MXNET_ENGINE_MAX_PENDING_OPS=0 is out of range');
    }
  });
});
