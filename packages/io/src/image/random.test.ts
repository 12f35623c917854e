/**
 * ImageRandom against CPython's `random` and NumPy's legacy generator: the same script of calls,
 * after the same seeds, gives the recorded results (image-random.json, from
 * tools/golden/image/random_draws.py). Integer draws and `random()` are exact; normal draws go
 * through log/sqrt, whose last bit may differ between libms.
 */
import { isMXNetError } from '@mx/base';
import { describe, expect, it } from 'vitest';
import golden from '../__golden__/image-random.json' with { type: 'json' };
import { ImageRandom } from './random.js';

describe(`ImageRandom reproduces ${golden.generator}`, () => {
  it.each(golden.cases.map((c) => [c.python, c.numpy, c] as const))(
    'random.seed(%s), np.random.seed(%s)',
    (python, numpy, c) => {
      const rng = new ImageRandom(python === numpy ? python : { python, numpy });
      for (const [i, call] of c.calls.entries()) {
        const args = call.args as number[];
        const where = `call ${i}: ${call.op}(${args.join(', ')})`;
        switch (call.op) {
          case 'random':
            expect(rng.random(), where).toBe(call.result);
            break;
          case 'uniform':
            expect(rng.uniform(args[0] as number, args[1] as number), where).toBe(call.result);
            break;
          case 'randint':
            expect(rng.randint(args[0] as number, args[1] as number), where).toBe(call.result);
            break;
          case 'shuffle': {
            const items = Array.from({ length: args[0] as number }, (_, k) => k);
            rng.shuffle(items);
            expect(items, where).toEqual(call.result);
            break;
          }
          default: {
            const v = rng.normal(args[0] as number, args[1] as number);
            expect(Math.abs(v - (call.result as number)), where).toBeLessThanOrEqual(
              1e-14 * Math.max(1, Math.abs(v)),
            );
          }
        }
      }
    },
  );

  it('is deterministic per seed and differs between seeds', () => {
    const a = new ImageRandom(7);
    const b = new ImageRandom(7);
    const c = new ImageRandom(8);
    const da = Array.from({ length: 5 }, () => a.random());
    expect(Array.from({ length: 5 }, () => b.random())).toEqual(da);
    expect(Array.from({ length: 5 }, () => c.random())).not.toEqual(da);
  });

  it('rejects bad seeds and bad randint bounds', () => {
    const bad = [
      () => new ImageRandom(1.5),
      () => new ImageRandom({ python: 1, numpy: -1 }),
      () => new ImageRandom({ python: 1, numpy: 2 ** 32 }),
      () => new ImageRandom(0).randint(3, 2),
      () => new ImageRandom(0).randint(0, 0.5),
    ];
    for (const f of bad) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(isMXNetError(err)).toBe(true);
    }
  });
});
