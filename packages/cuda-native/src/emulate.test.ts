/**
 * The numbers, without a GPU: every valid golden case of each kernel family runs through the real
 * kernel code on an emulating runtime, and the generated CUDA C is compiled with g++ and executed
 * on the CPU the way CUDA runs it (blocks in turn, a block's threads as real threads with barriers,
 * warp shuffles, atomics; cuBLAS replaced by a reference GEMM) — see test-util/host-emulate.ts.
 * Outputs start as 0xff bytes (NaN), so an element a kernel forgets to write fails; each family
 * also runs with req add on outputs holding the expected values (expecting twice them). Bad-input
 * cases that reach a kernel must fail with the expected message, directly or through a device
 * check read back after the op (take mode=raise, gather_nd's bounds, the np samplers' tensor
 * parameters). Every replay runs a second time with blocks and threads in reverse order and must
 * give the same golden values (a kernel where the last of racing writers wins fails). Host libm
 * stands in for CUDA's libdevice (both within the cases' tolerances) — except that the power ops
 * also run with a pow one ulp low, as CUDA's may be — and the random samplers' values are left to
 * their own tests (a GPU draws another sequence than cpu(0)).
 */
import { execFileSync } from 'node:child_process';
import type { OpRegistry } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { installElementwise } from './kernels/elementwise/index.js';
import { installLinalg } from './kernels/linalg/index.js';
import { convTuning } from './kernels/nn/conv/conv-gemm.js';
import { installNnConv } from './kernels/nn/conv/index.js';
import { installNnLayers } from './kernels/nn/layers/index.js';
import { installNp } from './kernels/np/index.js';
import { installReduce } from './kernels/reduce/index.js';
import { installShape } from './kernels/shape/index.js';
import type { RenderRuntime } from './render-runtime.js';
import { emulateCases } from './test-util/host-emulate.js';

const gxx = (() => {
  try {
    return execFileSync('g++', ['--version']).length > 0;
  } catch {
    return false;
  }
})();
if (!gxx) console.warn('@mx/cuda-native emulation: skipping: g++ not found');

type Install = (registry: OpRegistry, host: { rt: RenderRuntime }) => void;

/** Ops that write into an existing array by definition (MXNet: kWriteInplace only) refuse req add. */
const WRITE_ONLY = /^(_scatter_set_nd|_slice_assign|_slice_assign_scalar)$/;

const FAMILIES: readonly [string, readonly string[], Install, number][] = [
  ['elementwise', ['elementwise', 'np_elementwise'], installElementwise, 1400],
  ['linalg', ['linalg', 'nn_layers'], installLinalg, 100],
  ['shape', ['shape'], installShape, 400],
  ['reduce', ['reduce'], installReduce, 700],
  ['nn/layers', ['nn_layers', 'nn_seq'], installNnLayers, 350],
  ['nn/conv', ['conv', 'norm'], installNnConv, 280],
  [
    'np',
    ['np_creation', 'np_indexing', 'np_shape', 'np_reduce', 'np_misc', 'np_products', 'np_linalg'],
    installNp,
    340,
  ],
];

describe.skipIf(!gxx)('cuda kernels executed on the host (g++ SIMT emulation)', () => {
  for (const [name, golden, install, atLeast] of FAMILIES) {
    for (const req of ['write', 'add'] as const) {
      it(`${name}: every golden case, req ${req}`, () => {
        const res = emulateCases(golden, install, (op) => req === 'write' || !WRITE_ONLY.test(op), { req });
        expect(res.problems).toEqual([]);
        expect(res.cases).toBeGreaterThanOrEqual(atLeast);
      }, 600_000);
    }
  }
  it('bad indices fail the op through a device check, naming the index (take raise, gather_nd, scatter)', () => {
    const shape = emulateCases(['shape'], installShape, (op) => op === 'take');
    const np = emulateCases(['np_indexing'], installNp, (op) => /gather_nd|scatter_set_nd/.test(op));
    expect([...shape.problems, ...np.problems]).toEqual([]);
    expect(shape.errors).toBe(2);
    expect(np.errors).toBe(4);
  }, 600_000);
  it('integer powers are exact with a device pow one ulp low (pow(3, 1) may be 2.9999…)', () => {
    const power = (op: string) => /power/.test(op);
    const res = emulateCases(['elementwise', 'np_elementwise'], installElementwise, power, { powLow: true });
    expect(res.problems).toEqual([]);
    expect(res.cases).toBeGreaterThanOrEqual(59);
  }, 600_000);
  it('np sum / prod / mean accumulate in the result dtype (dtype=float64 of int32, bool as int64, initial)', () => {
    for (const req of ['write', 'add'] as const) {
      const res = emulateCases(['np_reduce'], installNp, (op) => /^_npi_(sum|prod|mean)$/.test(op), { req });
      expect(res.problems).toEqual([]);
      expect(res.cases).toBe(59);
    }
  }, 600_000);
  it('np samplers refuse tensor parameters out of their domain through a device check', () => {
    // Only the bad-input cases: a GPU draws another sequence than cpu(0), so valid samples are
    // left to the samplers' own tests. 12 scalar parameters fail on the host, 11 tensors on the device.
    const res = emulateCases(['np_random'], installNp, () => true, { errorsOnly: true });
    expect(res.problems).toEqual([]);
    expect(res.errors).toBe(23);
  }, 600_000);
  it('nn/conv with a 1-byte scratch budget (one image per pass, every chunking path)', () => {
    const saved = convTuning.scratchLimit;
    convTuning.scratchLimit = 1;
    try {
      const res = emulateCases(['conv'], installNnConv, () => true);
      expect(res.problems).toEqual([]);
      expect(res.cases).toBeGreaterThan(100);
    } finally {
      convTuning.scratchLimit = saved;
    }
  }, 600_000);
});
