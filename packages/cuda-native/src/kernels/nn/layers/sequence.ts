/**
 * SequenceMask, SequenceLast, SequenceReverse and their backward ops on cuda: one generated 1-D
 * gather kernel, one thread per output element, so no two threads write one element and nothing
 * waits on a readback. Data is viewed as (T, B, R) for axis 0 or (B, T, R) for axis 1 (R the
 * product of the trailing dims); each thread finds its (t, b, k), reads its sequence's length on
 * the device (any index dtype, truncated, clamped into [0, T]; T without `use_sequence_length`)
 * and copies (in the storage type, so every dtype works) or fills one element.
 *
 * As cpu-wasm: the backward of SequenceMask is the mask of the output gradient with value 0, the
 * backward of SequenceReverse is the reversal of the output gradient, SequenceLast of an empty
 * sequence reads position 0, and its backward puts each output-gradient row at that position
 * (zeros elsewhere). The mask may run in place (each thread reads, then writes, its own element).
 */
import type { DTypeName } from '@mx/base';
import type { Attrs, OpRegistry, OpReqType } from '@mx/ops';
import { BLOCK, blocksFor, CUDA_DTYPES, ctype, KIND_C, loadC, toStorage } from '../../../cuda-c.js';
import { addr, CUDA, type CudaBlob, type CudaCompute, type CudaHost, cudaKernel } from '../../../kernel.js';
import { cptr, indexReaderC, type Mode, modeOf, prod, putC, requireFloat, SourceCache } from './util.js';

type SeqMode = 'mask' | 'reverse' | 'last' | 'lastback';

interface SeqAttrs extends Attrs {
  readonly use_sequence_length: boolean;
  readonly axis: number;
  readonly value?: number;
}

const cache = new SourceCache('layers_seq');

function source(
  kind: SeqMode,
  m: Mode,
  xd: DTypeName,
  ld: DTypeName | undefined,
  od: DTypeName,
  entry: string,
): string {
  const raw = m === 'w' && xd === od;
  const put = (src: string) => (raw ? `o[i] = x[${src}];` : putC('o', od, 'i', loadC('x', xd, src), m));
  const fill = (v: string) => putC('o', od, 'i', v, m);
  let body = `    long long k = i % R;\n`;
  if (kind === 'last') body += '    long long b = i / R;\n';
  else
    body += `    long long r = i / R;
    long long t = axis == 0 ? r / B : r % T;
    long long b = axis == 0 ? r % B : r / T;\n`;
  body +=
    ld !== undefined
      ? '    long long len = mx_rdidx(ln, b); len = len < 0 ? 0 : (len > T ? T : len);\n'
      : '    long long len = T;\n';
  if (kind === 'mask') {
    const value = toStorage(od, `(${KIND_C[ctype(od).kind]})value`);
    body += `    if (t < len) { ${put('i')} } else { ${m === 'w' ? `o[i] = ${value};` : fill(`(${KIND_C[ctype(od).kind]})value`)} }\n`;
  } else if (kind === 'reverse') {
    body += `    long long tf = t < len ? len - 1 - t : t;
    long long src = (axis == 0 ? tf * B + b : b * T + tf) * R + k;
    ${put('src')}\n`;
  } else if (kind === 'last') {
    body += `    long long tl = len > 0 ? len - 1 : 0;
    long long src = (axis == 0 ? tl * B + b : b * T + tl) * R + k;
    if (T == 0) { ${fill('0')} } else { ${put('src')} }\n`;
  } else {
    body += `    long long tl = len > 0 ? len - 1 : 0;
    if (t == tl) { ${putC('o', od, 'i', loadC('x', xd, 'b * R + k'), m)} } else { ${fill('0')} }\n`;
  }
  return `${ld !== undefined ? indexReaderC('mx_rdidx', ld) : ''}extern "C" __global__ void ${entry}(${cptr(xd, 'x')}, ${cptr(ld ?? 'int32', 'ln')}, ${cptr(od, 'o', false)}, long long n, long long T, long long B, long long R, int axis, double value) {
  MX_GRID_LOOP(i, n) {
${body}  }
}
`;
}

function run(
  host: CudaHost,
  kind: SeqMode,
  op: string,
  a: SeqAttrs,
  x: CudaBlob,
  len: CudaBlob | undefined,
  out: CudaBlob,
  req: OpReqType | undefined,
  dataShape: readonly number[],
  value = 0,
): void {
  const m = modeOf(req, out);
  if (m === 'n') return;
  const axis = a.axis;
  const T = dataShape[axis] as number;
  const B = dataShape[1 - axis] as number;
  const R = prod(dataShape, 2);
  const l = a.use_sequence_length ? len : undefined;
  const key = `${kind}|${m}|${x.dtype},${l?.dtype ?? '-'},${out.dtype}`;
  const src = cache.get(key, (entry) => source(kind, m, x.dtype, l?.dtype, out.dtype, entry));
  host.rt.launch(
    src,
    [blocksFor(out.size)],
    [BLOCK],
    [
      { t: 'ptr', v: x.size === 0 ? 0 : addr(x, op) },
      { t: 'ptr', v: l === undefined ? 0 : addr(l, op) },
      { t: 'ptr', v: addr(out, op) },
      { t: 'i64', v: out.size },
      { t: 'i64', v: T },
      { t: 'i64', v: Math.max(1, B) },
      { t: 'i64', v: Math.max(1, R) },
      { t: 'i32', v: axis },
      { t: 'f64', v: value },
    ],
  );
}

export function installSequence(registry: OpRegistry, host: CudaHost): void {
  const reg = (name: string, fn: CudaCompute<SeqAttrs>) => {
    if (registry.has(name))
      registry.registerKernel(name, CUDA, cudaKernel<SeqAttrs>(host, name, fn, CUDA_DTYPES));
  };
  reg('SequenceMask', (a, [x, len], [r], [y]) => {
    const data = x as CudaBlob;
    run(host, 'mask', 'SequenceMask', a, data, len, y as CudaBlob, r, data.shape, a.value ?? 0);
  });
  reg('_backward_SequenceMask', (a, [og, len], [r], [dx]) => {
    const g = og as CudaBlob;
    requireFloat('_backward_SequenceMask', [g], 'the output gradient');
    run(host, 'mask', '_backward_SequenceMask', a, g, len, dx as CudaBlob, r, g.shape, 0);
  });
  reg('SequenceReverse', (a, [x, len], [r], [y]) => {
    const data = x as CudaBlob;
    run(host, 'reverse', 'SequenceReverse', a, data, len, y as CudaBlob, r, data.shape);
  });
  reg('_backward_SequenceReverse', (a, [og, len], [r], [dx]) => {
    const g = og as CudaBlob;
    requireFloat('_backward_SequenceReverse', [g], 'the output gradient');
    run(host, 'reverse', '_backward_SequenceReverse', a, g, len, dx as CudaBlob, r, g.shape);
  });
  reg('SequenceLast', (a, [x, len], [r], [y]) => {
    const data = x as CudaBlob;
    run(host, 'last', 'SequenceLast', a, data, len, y as CudaBlob, r, data.shape);
  });
  reg('_backward_SequenceLast', (a, [og, x, len], [r], [dx]) => {
    const g = og as CudaBlob;
    requireFloat('_backward_SequenceLast', [g], 'the output gradient');
    run(host, 'lastback', '_backward_SequenceLast', a, g, len, dx as CudaBlob, r, (x as CudaBlob).shape);
  });
}
