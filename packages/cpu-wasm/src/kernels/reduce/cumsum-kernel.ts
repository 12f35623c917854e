/**
 * cpu-wasm kernel of `_np_cumsum` (alias cumsum): a TypeScript scan per lane of the axis (the
 * flattened array when axis is None). Like MXNet, each input element is first cast to the output
 * dtype and the running sum is kept in that dtype (float32 rounds every step; integers wrap), which
 * is also NumPy's sequential order, so float results match NumPy bit for bit. Each element is read
 * before its output slot is written, so the in-place option (output 0 on input 0) is safe.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq, type OpReqType, type TBlob } from '@mx/ops';
import type { CpuWasmRuntime } from '../../runtime.js';
import { converterTo, REDUCE_DTYPES, storerFor, unsupportedDType } from './convert.js';
import { laneGeometry } from './index-kernels.js';
import { arithOf } from './ts-loops.js';

interface CumsumAttrs extends Attrs {
  readonly axis: number | null;
}

export function installCumsum(registry: OpRegistry, rt: CpuWasmRuntime): void {
  registry.registerKernel<CumsumAttrs>('_np_cumsum', 'cpu-wasm', {
    compute(attrs, _ctx, inputs, req, outputs) {
      const x = inputs[0] as TBlob<number>;
      const y = outputs[0] as TBlob<number>;
      const r = req[0] as OpReqType;
      for (const d of [x.dtype, y.dtype])
        if (!REDUCE_DTYPES.includes(d)) throw unsupportedDType('_np_cumsum', d, REDUCE_DTYPES);
      if (r === OpReq.null || x.size === 0) return;
      const od: DTypeName = y.dtype;
      const A = arithOf(od, '_np_cumsum') as { add(a: number | bigint, b: number | bigint): number | bigint };
      const conv = converterTo(od, '_np_cumsum');
      const [outer, n, inner] = laneGeometry(x.shape, attrs.axis);
      const v = rt.view(x) as unknown as (number | bigint)[];
      const store = storerFor(rt.view(y), od, r, '_np_cumsum');
      for (let o = 0; o < outer; o++) {
        for (let k = 0; k < inner; k++) {
          let p = o * n * inner + k;
          let acc = conv(v[p] as number | bigint);
          store(p, acc);
          for (let j = 1; j < n; j++) {
            p += inner;
            acc = A.add(acc, conv(v[p] as number | bigint));
            store(p, acc);
          }
        }
      }
    },
  });
}
