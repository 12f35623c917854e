/**
 * Embedding and _backward_Embedding on cuda.
 *
 * Forward: a 1-D gather, one thread per output element: row r's index (any index dtype, truncated
 * and clipped into [0, input_dim-1] as MXNet's Take<clip>) picks the weight element, copied in its
 * storage type (write) so every weight dtype works bit-exactly.
 *
 * Backward: the weight gradient is a scatter-add over possibly repeated indices: zeroed (write) or
 * kept (add), then one thread per output-gradient element atomicAdds it at its clipped row
 * (float32 and float64 natively, sm_60+). 16-bit gradients accumulate in a float32 scratch that is
 * converted (written or added) into the output afterwards. Atomic order makes repeated-index sums
 * bitwise nondeterministic in their last bits, as MXNet's GPU AddTakeGrad.
 */
import type { DTypeName } from '@mx/base';
import { type Attrs, type OpRegistry, OpReq } from '@mx/ops';
import { BLOCK, blocksFor, CUDA_DTYPES, ctype, loadC } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../../kernel.js';
import { runMap } from './map.js';
import { cptr, indexReaderC, modeOf, putC, requireFloat, SourceCache } from './util.js';

interface EmbeddingAttrs extends Attrs {
  readonly input_dim: number;
  readonly output_dim: number;
}

const cache = new SourceCache('layers_emb');

function forward(
  host: CudaHost,
  a: EmbeddingAttrs,
  data: CudaBlob,
  w: CudaBlob,
  out: CudaBlob,
  add: boolean,
): void {
  const op = 'Embedding';
  const key = `fwd|${data.dtype},${w.dtype}|${add ? 'a' : 'w'}`;
  const src = cache.get(
    key,
    (
      entry,
    ) => `${indexReaderC('mx_rdidx', data.dtype)}extern "C" __global__ void ${entry}(${cptr(data.dtype, 'ix')}, ${cptr(w.dtype, 'w')}, ${cptr(out.dtype, 'o', false)}, long long n, long long D, long long K) {
  MX_GRID_LOOP(i, n) {
    long long j = mx_rdidx(ix, i / D);
    j = j < 0 ? 0 : (j >= K ? K - 1 : j);
    long long src = j * D + i % D;
    ${add ? putC('o', out.dtype, 'i', loadC('w', w.dtype, 'src'), 'a') : 'o[i] = w[src];'}
  }
}
`,
  );
  host.rt.launch(
    src,
    [blocksFor(out.size)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(data, op) },
      { t: 'ptr', v: addr(w, op) },
      { t: 'ptr', v: addr(out, op) },
      { t: 'i64', v: out.size },
      { t: 'i64', v: Math.max(1, a.output_dim) },
      { t: 'i64', v: Math.max(1, a.input_dim) },
    ],
  );
}

/** dst[clip(idx[r]) * D + k] += og[r * D + k] with atomics; `dstType` is float or double. */
function scatter(
  host: CudaHost,
  a: EmbeddingAttrs,
  og: CudaBlob,
  data: CudaBlob,
  dst: number,
  dstType: DTypeName,
): void {
  const op = '_backward_Embedding';
  const n = og.size;
  if (n === 0) return;
  const st = ctype(dstType).storage;
  const src = cache.get(
    `scatter|${og.dtype},${data.dtype},${dstType}`,
    (
      entry,
    ) => `${indexReaderC('mx_rdidx', data.dtype)}extern "C" __global__ void ${entry}(${cptr(og.dtype, 'g')}, ${cptr(data.dtype, 'ix')}, ${st}* o, long long n, long long D, long long K) {
  MX_GRID_LOOP(i, n) {
    long long j = mx_rdidx(ix, i / D);
    j = j < 0 ? 0 : (j >= K ? K - 1 : j);
    atomicAdd(o + j * D + i % D, (${st})(${loadC('g', og.dtype, 'i')}));
  }
}
`,
  );
  host.rt.launch(
    src,
    [blocksFor(n)],
    [BLOCK],
    [
      { t: 'ptr', v: addr(og, op) },
      { t: 'ptr', v: addr(data, op) },
      { t: 'ptr', v: dst },
      { t: 'i64', v: n },
      { t: 'i64', v: Math.max(1, a.output_dim) },
      { t: 'i64', v: Math.max(1, a.input_dim) },
    ],
  );
}

export function installEmbedding(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('Embedding')) {
    registry.registerKernel(
      'Embedding',
      CUDA,
      cudaKernel<EmbeddingAttrs>(
        host,
        'Embedding',
        (a, [data, weight], [r], [y]) => {
          const out = y as CudaBlob;
          if (modeOf(r, out) === 'n') return;
          forward(host, a, data as CudaBlob, weight as CudaBlob, out, r === OpReq.add);
        },
        CUDA_DTYPES,
      ),
    );
  }
  if (registry.has('_backward_Embedding')) {
    registry.registerKernel(
      '_backward_Embedding',
      CUDA,
      cudaKernel<EmbeddingAttrs>(
        host,
        '_backward_Embedding',
        (a, [ograd, data], [r], [gw]) => {
          const op = '_backward_Embedding';
          const out = gw as CudaBlob;
          const og = ograd as CudaBlob;
          const mode = modeOf(r, out);
          if (mode === 'n') return;
          requireFloat(op, [og, out], 'the output and weight gradients');
          const bytes = out.size * ctype(out.dtype).bytes;
          if (out.dtype === 'float32' || out.dtype === 'float64') {
            if (mode === 'w') host.rt.memset(addr(out, op), 0, bytes);
            scatter(host, a, og, data as CudaBlob, addr(out, op), out.dtype);
            return;
          }
          // 16-bit gradients: accumulate in a float32 scratch, then convert into the output.
          const tmp = host.rt.temp(out.size * 4);
          host.rt.memset(tmp, 0, out.size * 4);
          scatter(host, a, og, data as CudaBlob, tmp, 'float32');
          const acc: CudaBlob = {
            ptr: tmp,
            byteOffset: 0,
            shape: out.shape,
            dtype: 'float32',
            size: out.size,
          };
          runMap(host, { op, expr: 'a0', inputs: [acc], out, mode });
        },
        CUDA_DTYPES,
      ),
    );
  }
}
