/**
 * Code paths the golden cases do not reach through the shared harness (which renders with req
 * write only): every golden `shape` case again with req add, plus synthetic calls for the other
 * branches — the sorted `_backward_take` (more than SCAN_MAX indices), every dtype pair of
 * `_backward_Cast`, every dtype through the add kernels, Pad's modes, one_hot outputs, index dtypes,
 * and a view of more axes than a kernel walks (the host loop). All rendered on a RenderRuntime, then
 * compiled with nvcc and NVRTC like the main test.
 */
import { type DTypeName, gpu, type Shape } from '@mx/base';
import { loadCases } from '@mx/conformance';
import { createOpRegistry, type OpContext, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import { describe, expect, it } from 'vitest';
import { CUDA_DTYPES } from '../../cuda-c.js';
import { CUDA } from '../../kernel.js';
import { RenderRuntime } from '../../render-runtime.js';
import { itCompiles } from '../../test-util/compile.js';
import { installShape } from './index.js';
import { SCAN_MAX } from './take-grad.js';

function harness() {
  const rt = new RenderRuntime();
  const registry = createOpRegistry();
  installShape(registry, { rt });
  const errors: string[] = [];
  let next = 0x100000000;
  const blob = (shape: Shape, dtype: DTypeName): TBlob<number> => {
    const size = shape.reduce((a, b) => a * b, 1);
    const b = { ptr: size === 0 ? null : next, byteOffset: 0, shape, dtype, size };
    next += Math.ceil((size * 8 + 256) / 256) * 256;
    return b;
  };
  const ctx: OpContext = { isTrain: false, needGrad: false, ctx: gpu(0), requested: [] };
  /** Run op's cuda kernel on fake blobs; output shapes/dtypes inferred unless given. */
  const call = (
    name: string,
    params: Record<string, unknown>,
    ins: [Shape, DTypeName][],
    req: OpReqType,
    outs?: [Shape, DTypeName][],
  ): void => {
    try {
      const op = registry.get(name);
      const kernel = registry.kernel(op, CUDA);
      if (kernel?.compute === undefined) throw new Error('no cuda kernel');
      const attrs = op.parseParams(params);
      const nOut = op.numOutputs(attrs);
      const outShapes: (Shape | undefined)[] = Array.from({ length: nOut }, (_, i) => outs?.[i]?.[0]);
      op.inferShape(
        attrs,
        ins.map(([s]) => s),
        outShapes,
      );
      const outTypes: (DTypeName | undefined)[] = Array.from({ length: nOut }, (_, i) => outs?.[i]?.[1]);
      op.inferType(
        attrs,
        ins.map(([, d]) => d),
        outTypes,
      );
      const outputs = outShapes.map((s, i) => blob(s ?? [], outTypes[i] ?? 'float32'));
      kernel.compute(
        attrs,
        ctx,
        ins.map(([s, d]) => blob(s, d)),
        outputs.map(() => req),
        outputs,
      );
    } catch (e) {
      errors.push(
        `${name} ${JSON.stringify(params)} ${JSON.stringify(ins)}: ${(e as Error).message.split('\n')[0]}`,
      );
    }
  };
  return { rt, registry, errors, call };
}

describe('cuda shape kernel variants', () => {
  const h = harness();
  let golden = 0;
  for (const c of loadCases('shape')) {
    if (c.error !== undefined || c.skip !== undefined || c.outputs === undefined) continue;
    if (!h.registry.has(c.op)) continue;
    h.call(
      c.op,
      c.params as Record<string, unknown>,
      c.inputs.map((a) => [a.shape, a.dtype as DTypeName]),
      OpReq.add,
      c.outputs.map((a) => [a.shape, a.dtype as DTypeName]),
    );
    golden++;
  }
  for (const req of [OpReq.write, OpReq.add]) {
    for (const d of CUDA_DTYPES) {
      h.call('transpose', { axes: [1, 0, 2] }, [[[3, 4, 5], d]], req);
      h.call(
        'Concat',
        { dim: 1, num_args: 2 },
        [
          [[2, 3], d],
          [[2, 5], d],
        ],
        req,
      );
      for (const mode of ['constant', 'edge', 'reflect'])
        h.call(
          'Pad',
          { mode, pad_width: [0, 0, 0, 0, 1, 2, 2, 1], constant_value: 1.5 },
          [[[2, 3, 4, 5], d]],
          req,
        );
      h.call(
        '_backward_Pad',
        { mode: 'reflect', pad_width: [0, 0, 0, 0, 1, 2, 2, 1] },
        [
          [[2, 3, 7, 8], d],
          [[2, 3, 4, 5], d],
        ],
        req,
      );
      h.call(
        '_backward_Pad',
        { mode: 'edge', pad_width: [0, 0, 0, 0, 2, 0, 2, 1] },
        [
          [[2, 3, 6, 8], d],
          [[2, 3, 4, 5], d],
        ],
        req,
      );
      h.call('one_hot', { depth: 5, dtype: d, on_value: 2, off_value: -1 }, [[[3, 2], 'int32']], req);
      h.call(
        'take',
        { axis: 0, mode: 'wrap' },
        [
          [[6, 4], d],
          [[3], d],
        ],
        req,
      );
      h.call(
        'pick',
        { axis: 1, mode: 'clip' },
        [
          [[6, 4], d],
          [[6], d],
        ],
        req,
      );
      h.call('diag', { k: 1 }, [[[4], d]], req);
      h.call(
        '_backward_diag',
        { k: -1 },
        [
          [[5, 5], d],
          [[4], d],
        ],
        req,
      );
      for (const to of CUDA_DTYPES)
        h.call(
          '_backward_Cast',
          {},
          [
            [[3, 4], d],
            [[3, 4], to],
          ],
          req,
          [[[3, 4], to]],
        );
    }
    for (const d of ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'] as DTypeName[]) {
      h.call(
        '_backward_take',
        { axis: 0, mode: 'clip' },
        [
          [[SCAN_MAX + 37, 8], d],
          [[SCAN_MAX + 37], 'int64'],
          [[10, 8], d],
        ],
        req,
      );
      h.call(
        '_backward_take',
        { axis: 1, mode: 'wrap' },
        [
          [[3, 5, 8], d],
          [[5], 'float16'],
          [[3, 10, 8], d],
        ],
        req,
      );
      h.call(
        '_backward_pick',
        { axis: 0, mode: 'wrap' },
        [
          [[8], d],
          [[8], 'bool'],
          [[4, 8], d],
        ],
        req,
      );
      h.call(
        '_backward_tile',
        { reps: [2, 1, 3] },
        [
          [[4, 3, 6], d],
          [[2, 3, 2], d],
        ],
        req,
      );
      h.call(
        '_backward_repeat',
        { repeats: 3, axis: 1 },
        [
          [[2, 9], d],
          [[2, 3], d],
        ],
        req,
      );
    }
  }
  // A permutation of 10 non-mergeable axes: the host loops over the leading two.
  h.call(
    'transpose',
    { axes: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0] },
    [[[2, 2, 2, 2, 2, 2, 2, 2, 2, 2], 'float32']],
    OpReq.write,
  );

  it('renders every variant with arguments matching each kernel signature', () => {
    expect(golden).toBeGreaterThan(300);
    expect(h.errors).toEqual([]);
    expect(h.rt.problems).toEqual([]);
    // The sorted `_backward_take` and the host loop ran.
    expect(h.rt.launches.some((l) => l.source.code.includes('keys[a] = y'))).toBe(true);
    expect(h.rt.launches.filter((l) => l.op === 'transpose' && l.args.length === 6).length).toBeGreaterThan(
      3,
    );
  });

  itCompiles(() => [h.rt]);
});
