/**
 * The linalg kernels on gpu(0) against cpu-wasm for what the golden cases do not reach: odd sizes
 * spanning several tiles in every transpose combination, each tile configuration (small, wide,
 * large), batches and gemm2's row axis, views at element offsets, req add and null, and dtype
 * errors.
 */
import { describe, expect, it } from 'vitest';
import { gpuTestEnv } from '../../test-util/gpu.js';
import { compareWithCpu, GPU, seeded } from './test-util.js';

const env = await gpuTestEnv();
const d = typeof env === 'string' ? describe.skip : describe;
const E = env as Exclude<typeof env, string>;

d('webgpu linalg vs cpu', () => {
  it('dot 129×67×35 in all transpose combinations', async () => {
    for (const ta of [false, true])
      for (const tb of [false, true]) {
        const a = ta ? [67, 129] : [129, 67];
        const b = tb ? [35, 67] : [67, 35];
        await compareWithCpu(E.runtime, {
          op: 'dot',
          shapes: [a, b],
          params: { transpose_a: ta, transpose_b: tb },
        });
      }
  });

  it('batch_dot on the wide and large tiles, all transposes', async () => {
    for (const ta of [false, true])
      for (const tb of [false, true]) {
        // wide tile: 4 × (257×33)·(33×300)
        const a = ta ? [4, 33, 257] : [4, 257, 33];
        const b = tb ? [4, 300, 33] : [4, 33, 300];
        await compareWithCpu(E.runtime, {
          op: 'batch_dot',
          shapes: [a, b],
          params: { transpose_a: ta, transpose_b: tb },
        });
      }
    // large tile: 24 × (130×19)·(19×131)
    await compareWithCpu(E.runtime, {
      op: 'batch_dot',
      shapes: [
        [24, 130, 19],
        [24, 19, 131],
      ],
    });
  });

  it('_linalg_gemm2 with a row axis, alpha and transposes', async () => {
    await compareWithCpu(E.runtime, {
      op: '_linalg_gemm2',
      shapes: [
        [3, 70, 2, 45],
        [3, 45, 2, 66],
      ],
      params: { axis: 1, alpha: -0.75 },
    });
    await compareWithCpu(E.runtime, {
      op: '_linalg_gemm2',
      shapes: [
        [2, 45, 70],
        [2, 66, 45],
      ],
      params: { transpose_a: true, transpose_b: true, alpha: 2 },
    });
  });

  it('accumulates with req add and honours req null per gradient', async () => {
    await compareWithCpu(E.runtime, {
      op: 'dot',
      shapes: [
        [77, 65],
        [65, 66],
      ],
      add: true,
    });
    await compareWithCpu(E.runtime, {
      op: 'batch_dot',
      shapes: [
        [2, 9, 70],
        [2, 70, 5],
      ],
      add: true,
    });
    await compareWithCpu(E.runtime, {
      op: '_backward_dot',
      shapes: [
        [70, 33],
        [70, 65],
        [65, 33],
      ],
      add: true,
    });
    await compareWithCpu(E.runtime, {
      op: '_backward_dot',
      shapes: [
        [70, 33],
        [65, 70],
        [33, 65],
      ],
      params: { transpose_a: true, transpose_b: true },
      skip: [false, true],
    });
  });

  it('FullyConnected forward and backward (req add, req null, no_bias, flatten=false)', async () => {
    const p = { num_hidden: 70 };
    await compareWithCpu(E.runtime, {
      op: 'FullyConnected',
      shapes: [[65, 3, 11], [70, 33], [70]],
      params: p,
    });
    await compareWithCpu(E.runtime, {
      op: 'FullyConnected',
      shapes: [[65, 3, 11], [70, 33], [70]],
      params: p,
      add: true,
    });
    await compareWithCpu(E.runtime, {
      op: 'FullyConnected',
      shapes: [
        [5, 3, 11],
        [70, 11],
      ],
      params: { ...p, no_bias: true, flatten: false },
    });
    const bwd = [
      [65, 70],
      [65, 3, 11],
      [70, 33],
    ];
    await compareWithCpu(E.runtime, { op: '_backward_FullyConnected', shapes: bwd, params: p });
    await compareWithCpu(E.runtime, { op: '_backward_FullyConnected', shapes: bwd, params: p, add: true });
    await compareWithCpu(E.runtime, {
      op: '_backward_FullyConnected',
      shapes: bwd,
      params: p,
      skip: [true, false, false],
    });
  });

  it('reads views at element offsets', async () => {
    const { nd } = E.runtime;
    const big = nd.array(seeded(5 * 6 * 7, 3), { ctx: GPU, shape: [5, 6, 7] });
    const w = nd.array(seeded(7 * 4, 4), { ctx: GPU, shape: [7, 4] });
    const v = big.slice(2, 4); // (2, 6, 7) at element offset 84
    const got = Array.from((await E.runtime.invoke('dot', [v, w])[0]?.data()) as Float32Array);
    const hv = seeded(5 * 6 * 7, 3).subarray(84, 84 + 84);
    const hw = seeded(28, 4);
    for (let r = 0; r < 12; r++)
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let k = 0; k < 7; k++) s += (hv[r * 7 + k] as number) * (hw[k * 4 + c] as number);
        expect(got[r * 4 + c]).toBeCloseTo(s, 4);
      }
  });

  it('rejects dtypes it cannot compute', () => {
    const { nd } = E.runtime;
    const a = nd.array([1, 2, 3, 4], { ctx: GPU, dtype: 'int32', shape: [2, 2] });
    expect(() => E.runtime.invoke('dot', [a, a])).toThrow(/is not supported by dot/);
  });
});
