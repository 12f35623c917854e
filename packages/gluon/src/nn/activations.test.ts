/**
 * Activation layers against PyTorch (tools/golden/gluon/nn.py): LeakyReLU, PReLU with a shared and
 * a per-channel slope (and the slope's gradient), ELU, SELU, GELU (erf and tanh), Swish and SiLU,
 * output and input gradient; PReLU's default Constant(0.25) slope; argument checks.
 */
import { isMXNetError } from '@mx/base';
import { CpuWasmBackend } from '@mx/cpu-wasm';
import { createRuntime } from '@mx/ndarray';
import { afterAll, describe, expect, it } from 'vitest';
import type { HybridBlock } from '../block/hybrid-block.js';
import { ELU, GELU, LeakyReLU, PReLU, type PReLUOptions, SELU, SiLU, Swish } from './activations.js';
import { disposeParams, type GoldenCase, loadGolden, runCase } from './golden-case.test-util.js';

const rt = createRuntime({ backends: [new CpuWasmBackend({ initialPages: 64 })] });
const { nd } = rt;
afterAll(() => rt.dispose());

type ActCase = GoldenCase & { cls: string; args: unknown[] };
const golden = loadGolden<Record<string, ActCase>>('act');

const BUILD: Record<string, (args: unknown[]) => HybridBlock> = {
  LeakyReLU: (a) => new LeakyReLU(a[0] as number),
  PReLU: (a) => new PReLU(a[0] as PReLUOptions),
  ELU: (a) => new ELU(a[0] as number),
  SELU: () => new SELU(),
  GELU: (a) => new GELU(a[0] as 'erf' | 'tanh' | undefined),
  Swish: (a) => new Swish(a[0] as number),
  SiLU: () => new SiLU(),
};

describe('activation layers against PyTorch', () => {
  for (const [name, c] of Object.entries(golden))
    for (const hybridize of [false, true]) {
      it(`${name}${hybridize ? ' (hybridized)' : ''}: ${c.cls}(${c.args.map((a) => JSON.stringify(a)).join(', ')})`, async () => {
        await nd.leakCheck(() => {
          const layer = (BUILD[c.cls] as (args: unknown[]) => HybridBlock)(c.args);
          runCase(rt, layer, c, { hybridize });
          disposeParams(layer);
        });
      });
    }
});

describe('activation layer arguments', () => {
  it("initializes PReLU's slopes to 0.25 and names its parameter alpha", async () => {
    await nd.leakCheck(() => {
      const p = new PReLU({ inChannels: 3 });
      expect([...p.collectParams().keys()]).toEqual(['alpha']);
      p.initialize(undefined, { runtime: rt });
      expect(p.alpha.data().dataSync()).toEqual(new Float32Array([0.25, 0.25, 0.25]));
      const x = nd.array([-4, 2, -8, 1, -1, 0], { shape: [2, 3] });
      const y = p.forward(x);
      expect(y.dataSync()).toEqual(new Float32Array([-1, 2, -2, 1, -0.25, 0]));
      const wrong = nd.zeros([2, 4]);
      try {
        p.forward(wrong);
        expect.unreachable();
      } catch (e) {
        expect(isMXNetError(e)).toBe(true);
        expect(String(e)).toContain('PReLU has 3 slopes (one per channel) but got input of shape (2, 4)');
      }
      for (const t of [x, y, wrong]) t.dispose();
      disposeParams(p);
    });
  });

  it('refuses a negative LeakyReLU slope and an unknown GELU approximation', () => {
    expect(() => new LeakyReLU(-0.1)).toThrow(/must be no less than 0/);
    expect(() => new GELU('sigmoid' as 'erf')).toThrow(
      /Supported values are 'erf' and 'tanh', but got 'sigmoid'/,
    );
    expect(String(new LeakyReLU(0.2))).toBe('LeakyReLU(0.2)');
  });
});
