/**
 * The ResourceManager driven by the real @mx/engine (a dev-only dependency: @mx/storage itself
 * never imports the engine, it only declares the ResourceScheduler shape the engine satisfies).
 */
import { cpu, gpu } from '@mx/base';
import { createEngine, type Engine, type Var } from '@mx/engine';
import { describe, expect, it } from 'vitest';
import { Storage } from '../storage.js';
import { MT19937 } from './mt19937.js';
import { ResourceManager } from './resource-manager.js';
import type { ResourceScheduler } from './types.js';

function firstOutputs(seed: number, n: number): number[] {
  const g = new MT19937(seed);
  return Array.from({ length: n }, () => g.nextUint32());
}

describe.each(['threaded', 'naive'] as const)('ResourceManager on the %s engine', (kind) => {
  it('orders reseeding with the ops that draw from the generator', async () => {
    const engine: Engine = createEngine({ kind });
    const scheduler: ResourceScheduler<Var> = engine; // the engine satisfies the structural interface
    const rm = new ResourceManager<Var>({ storage: new Storage(), scheduler, seed: 1 });
    const rnd = rm.random(gpu(2));
    const v = rnd.var as Var;
    const draws: number[][] = [];
    const draw = () =>
      engine.pushSync(
        () => draws.push([rnd.generator.nextUint32(), rnd.generator.nextUint32()]),
        gpu(2),
        [],
        [v],
      );
    draw();
    rm.seed(42);
    draw();
    rm.seed(7, gpu(2));
    draw();
    await engine.waitForAll();
    expect(draws).toEqual([firstOutputs(2 + 1 * 127, 2), firstOutputs(2 + 42 * 127, 2), firstOutputs(7, 2)]);
  });

  it('releases temp space after the ops using it, when disposed', async () => {
    const engine = createEngine({ kind });
    const storage = new Storage();
    const rm = new ResourceManager<Var>({ storage, scheduler: engine, seed: 0 });
    const temp = rm.tempSpace(cpu());
    const h = temp.get(1000);
    let sawLive = false;
    engine.pushAsync(
      (_r, done) =>
        setTimeout(() => {
          sawLive = h.live;
          done();
        }, 1),
      cpu(),
      [],
      [temp.var as Var],
    );
    rm.dispose();
    await engine.waitForAll();
    expect(sawLive).toBe(true);
    expect(h.live).toBe(false);
    expect(storage.stats(cpu()).liveHandles).toBe(0);
  });
});
