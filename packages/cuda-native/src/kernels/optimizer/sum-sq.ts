/**
 * multi_sum_sq on cuda-native: the sum of squares of each input, as float32 (MXNet
 * contrib/multi_sum_sq). Accumulation is in double, as cpu-wasm's (float32 squares are exact in
 * double, so long arrays keep full float32 accuracy), and in two passes with a fixed partition, so
 * no atomics are needed and the result does not depend on scheduling:
 *
 *   partial: grid (parts, arrays); block (p, a) sums elements p*BLOCK + tid + k*parts*BLOCK of
 *            array a (pointer and count from an uploaded table), then a shared-memory tree
 *            reduction writes one partial into a scratch row of `parts` doubles per array;
 *   final:   one block per array tree-reduces its row into out[a] (float, under req).
 */
import { type DTypeName, MXNetError } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import { BLOCK, type CudaSource, cachedSource, ctype, loadC } from '../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaHost, cudaKernel } from '../../kernel.js';
import type { CudaRuntime } from '../../runtime.js';

const MAX_PARTS = 256;
/** Elements each thread should sum before another partial block is worth it. */
const PER_THREAD = 16;
const MAX_GRID_Y = 65535;

export const SUM_SQ_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'float16', 'bfloat16'];

const TREE = `  sh[threadIdx.x] = acc;
  __syncthreads();
  for (int s = ${BLOCK / 2}; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
`;

const cached = (key: string, make: (entry: string) => string): CudaSource => cachedSource('sumsq', key, make);

function partialSource(dtype: DTypeName): CudaSource {
  const st = ctype(dtype, 'multi_sum_sq').storage;
  return cached(
    `part|${dtype}`,
    (
      entry,
    ) => `extern "C" __global__ void __launch_bounds__(${BLOCK}) ${entry}(const long long* tab, double* part, int parts, int a0) {
  __shared__ double sh[${BLOCK}];
  const long long a = (long long)a0 + blockIdx.y;
  const ${st}* x = (const ${st}*)tab[2 * a];
  const long long n = tab[2 * a + 1];
  double acc = 0.0;
  for (long long k = (long long)blockIdx.x * ${BLOCK} + threadIdx.x; k < n; k += (long long)parts * ${BLOCK}) {
    const double v = (double)(${loadC('x', dtype, 'k')});
    acc = __dadd_rn(acc, __dmul_rn(v, v));
  }
${TREE}  if (threadIdx.x == 0) part[a * parts + blockIdx.x] = sh[0];
}
`,
  );
}

function finalSource(add: boolean): CudaSource {
  return cached(
    `final|${add ? 'add' : 'write'}`,
    (
      entry,
    ) => `extern "C" __global__ void __launch_bounds__(${BLOCK}) ${entry}(const double* part, float* out, int parts) {
  __shared__ double sh[${BLOCK}];
  const long long a = blockIdx.x;
  double acc = 0.0;
  for (int k = threadIdx.x; k < parts; k += ${BLOCK}) acc += part[a * parts + k];
${TREE}  if (threadIdx.x == 0) out[a] = ${add ? '(float)((double)out[a] + sh[0])' : '(float)sh[0]'};
}
`,
  );
}

/** Partial blocks per array for arrays of at most `maxN` elements. */
export function partsFor(maxN: number): number {
  return Math.max(1, Math.min(MAX_PARTS, Math.ceil(maxN / (BLOCK * PER_THREAD))));
}

function sumSq(rt: CudaRuntime, inputs: readonly CudaBlob[], out: CudaBlob, req: OpReqType): void {
  const op = 'multi_sum_sq';
  const count = inputs.length;
  if (count === 0 || out.size === 0) return;
  const dtype = (inputs[0] as CudaBlob).dtype;
  if (inputs.some((x) => x.dtype !== dtype) || !SUM_SQ_DTYPES.includes(dtype) || out.dtype !== 'float32') {
    throw new MXNetError('multi_sum_sq needs float inputs of one dtype and a float32 output', {
      op,
      dtypes: [...inputs.map((x) => x.dtype), out.dtype],
      device: `gpu(${rt.device})`,
      hint: `cast the arrays to one of ${SUM_SQ_DTYPES.join(', ')}, or call multi_sum_sq once per dtype`,
    });
  }
  const tab = new BigInt64Array(2 * count);
  let maxN = 0;
  inputs.forEach((x, i) => {
    tab[2 * i] = BigInt(addr(x, op));
    tab[2 * i + 1] = BigInt(x.size);
    maxN = Math.max(maxN, x.size);
  });
  const parts = partsFor(maxN);
  const tabPtr = rt.upload(tab);
  const part = rt.temp(count * parts * 8);
  const ps = partialSource(dtype);
  for (let a0 = 0; a0 < count; a0 += MAX_GRID_Y) {
    rt.launch(
      ps,
      [parts, Math.min(MAX_GRID_Y, count - a0)],
      [BLOCK],
      [
        { t: 'ptr', v: tabPtr },
        { t: 'ptr', v: part },
        { t: 'i32', v: parts },
        { t: 'i32', v: a0 },
      ],
    );
  }
  rt.launch(
    finalSource(req === OpReq.add),
    [count],
    [BLOCK],
    [
      { t: 'ptr', v: part },
      { t: 'ptr', v: addr(out, op) },
      { t: 'i32', v: parts },
    ],
  );
}

export function installSumSq(registry: OpRegistry, host: CudaHost): void {
  if (!registry.has('multi_sum_sq')) return;
  registry.registerKernel(
    'multi_sum_sq',
    CUDA,
    cudaKernel(
      host,
      'multi_sum_sq',
      (_attrs, inputs, req, outputs) => {
        const out = outputs[0] as CudaBlob | undefined;
        const r = req[0];
        if (out === undefined || r === undefined || r === OpReq.null) return;
        sumSq(host.rt, inputs, out, r);
      },
      SUM_SQ_DTYPES,
    ),
  );
}
