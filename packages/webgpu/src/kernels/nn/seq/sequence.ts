/**
 * SequenceMask, SequenceLast, SequenceReverse and their backward ops on webgpu: one generated 1-D
 * gather kernel, one invocation per output element. Data is viewed as (T, B, R) for axis 0 or
 * (B, T, R) for axis 1 (R the product of the trailing dims); each invocation finds its (t, b, k),
 * reads its sequence's length in the shader (any index dtype, truncated, clamped into [0, T]; T
 * without `use_sequence_length`) and copies or fills one element, so nothing waits on a readback.
 *
 * As in cpu-wasm: the backward of SequenceMask is the mask of the output gradient with value 0, the
 * backward of SequenceReverse is the reversal of the output gradient, and SequenceLast of an empty
 * sequence reads position 0. The mask may run in place (each invocation reads, then writes, its
 * own element).
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import {
  bindBlobs,
  declareArrays,
  elemOffset,
  load,
  main1d,
  needsF16,
  paramAs,
  paramBits,
  paramsDecl,
  store,
} from '../../../wgsl.js';
import { define, indexReader, prod, requireFloat, requireWordDtype } from './util.js';

const WG = 256;

type Mode = 'mask' | 'reverse' | 'last' | 'lastback';

interface SeqAttrs {
  readonly use_sequence_length: boolean;
  readonly axis: number;
  readonly value?: number;
}

// Uniform words: 0 n, 1 T, 2 B, 3 R, 4 xOff, 5 lenOff, 6 outOff, 7 axis, 8 value (output dtype).
function source(mode: Mode, add: boolean, dtypes: readonly DTypeName[], bind: ReturnType<typeof bindBlobs>) {
  const { decls, names } = declareArrays(bind, dtypes);
  const [x, len, out] = names as [string, string, string];
  const hasLen = bind.slot[1] !== undefined && bind.slot[1] >= 0;
  const xd = dtypes[0] as DTypeName;
  const od = dtypes[2] as DTypeName;
  const zero = od === 'float32' || od === 'float16' ? '0.0' : '0';
  const rd = (idx: string) => `${od === xd ? '' : wgslCast(od)}(${load(x, xd, idx)})`;
  let body = `  let T = pu(1u); let B = pu(2u); let R = pu(3u);
  let k = i % R;\n`;
  if (mode === 'last') body += '  let b = i / R;\n';
  else
    body += `  let r = i / R;
  let t = select(r % T, r / B, pu(7u) == 0u);
  let b = select(r / T, r % B, pu(7u) == 0u);\n`;
  body += hasLen ? '  let len = u32(clamp(seqlen(pu(5u) + b), 0, i32(T)));\n' : '  let len = T;\n';
  let v: string;
  if (mode === 'mask') v = `select(${paramAs(od, 8)}, ${rd('pu(4u) + i')}, t < len)`;
  else if (mode === 'reverse') {
    body += '  let tf = select(t, len - 1u - t, t < len);\n';
    body += '  let src = select(b * T + tf, tf * B + b, pu(7u) == 0u) * R + k;\n';
    v = rd('pu(4u) + src');
  } else if (mode === 'last') {
    body += `  let tl = select(len - 1u, 0u, len == 0u);
  let src = select(b * T + tl, tl * B + b, pu(7u) == 0u) * R + k;\n`;
    v = `select(${rd('pu(4u) + src')}, ${zero}, T == 0u)`;
  } else {
    body += '  let tl = select(len - 1u, 0u, len == 0u);\n';
    v = `select(${zero}, ${rd('pu(4u) + b * R + k')}, t == tl)`;
  }
  body += `  let v = ${v};\n`;
  const oi = 'pu(6u) + i';
  body += `  ${store(out, od, oi, add ? `${load(out, od, oi)} + v` : 'v')}\n`;
  return `${needsF16(dtypes) ? 'enable f16;\n' : ''}${paramsDecl(9)}${decls}${
    hasLen ? indexReader('seqlen', len, dtypes[1] as DTypeName) : ''
  }${main1d(WG, 'pu(0u)', body)}`;
}

function wgslCast(d: DTypeName): string {
  return d === 'float16' ? 'f16' : d === 'int32' ? 'i32' : d === 'uint32' ? 'u32' : 'f32';
}

function run(
  rt: WebGpuRuntime,
  mode: Mode,
  op: string,
  attrs: SeqAttrs,
  x: GpuBlob,
  len: GpuBlob | undefined,
  out: GpuBlob,
  req: OpReqType,
  dataShape: readonly number[],
  value = 0,
): void {
  if (req === OpReq.null || out.size === 0) return;
  requireWordDtype(op, out, 'output');
  const axis = attrs.axis;
  const T = dataShape[axis] as number;
  const B = dataShape[1 - axis] as number;
  const R = prod(dataShape, 2);
  const l = attrs.use_sequence_length ? len : undefined;
  // SequenceLast of empty sequences reads nothing (T = 0): bind the output in the data's place.
  const src = x.ptr === null ? out : x;
  const blobs = [src, l ?? { ...x, ptr: null }, out];
  const bind = bindBlobs(blobs);
  const dtypes = [src.dtype, l?.dtype ?? x.dtype, out.dtype];
  const add = req === OpReq.add;
  const key = `seq:${mode}:${add ? 1 : 0}:${dtypes.join(',')}:${bind.key}`;
  const entry = rt.pipeline(key, () => source(mode, add, dtypes, bind), 9);
  const params = [
    out.size,
    T,
    B,
    R,
    elemOffset(src),
    l === undefined ? 0 : elemOffset(l),
    elemOffset(out),
    axis,
    paramBits(out.dtype, value),
  ];
  rt.dispatch(entry, bind.buffers, params, grid1d(out.size, WG));
}

export function installSequence(registry: OpRegistry, gpu: GpuHost): void {
  define<SeqAttrs>(registry, gpu, 'SequenceMask', (a, [x, len], [r], [y]) => {
    const data = x as GpuBlob;
    run(gpu.rt, 'mask', 'SequenceMask', a, data, len, y as GpuBlob, r as OpReqType, data.shape, a.value ?? 0);
  });
  define<SeqAttrs>(registry, gpu, '_backward_SequenceMask', (a, [og, len], [r], [dx]) => {
    const g = og as GpuBlob;
    requireFloat('_backward_SequenceMask', g, 'output gradient', true);
    run(gpu.rt, 'mask', '_backward_SequenceMask', a, g, len, dx as GpuBlob, r as OpReqType, g.shape, 0);
  });
  define<SeqAttrs>(registry, gpu, 'SequenceReverse', (a, [x, len], [r], [y]) => {
    const data = x as GpuBlob;
    run(gpu.rt, 'reverse', 'SequenceReverse', a, data, len, y as GpuBlob, r as OpReqType, data.shape);
  });
  define<SeqAttrs>(registry, gpu, '_backward_SequenceReverse', (a, [og, len], [r], [dx]) => {
    const g = og as GpuBlob;
    requireFloat('_backward_SequenceReverse', g, 'output gradient', true);
    run(gpu.rt, 'reverse', '_backward_SequenceReverse', a, g, len, dx as GpuBlob, r as OpReqType, g.shape);
  });
  define<SeqAttrs>(registry, gpu, 'SequenceLast', (a, [x, len], [r], [y]) => {
    const data = x as GpuBlob;
    run(gpu.rt, 'last', 'SequenceLast', a, data, len, y as GpuBlob, r as OpReqType, data.shape);
  });
  define<SeqAttrs>(registry, gpu, '_backward_SequenceLast', (a, [og, x, len], [r], [dx]) => {
    const g = og as GpuBlob;
    requireFloat('_backward_SequenceLast', g, 'output gradient', true);
    const data = x as GpuBlob;
    run(gpu.rt, 'lastback', '_backward_SequenceLast', a, g, len, dx as GpuBlob, r as OpReqType, data.shape);
  });
}
