/**
 * CTCLoss and _backward_ctc_loss on webgpu (float32 data).
 *
 * The forward (alpha) and backward (beta) recursions are sequential over time, so CTCLoss runs one
 * workgroup per sequence: its threads split the S = 2L+1 states of the blank-extended label (and
 * the C classes for the log-softmax and gradient rows) and step through time together, with a
 * barrier per step. Everything is in log space as cpu-wasm computes it (log-softmax per step,
 * logAdd = max + log1p(exp(-|a-b|))), with a large negative sentinel standing for log 0 so no
 * infinities flow through f32 arithmetic. Loops over time run to the uniform max length with the
 * per-sequence work guarded inside, so every barrier is in uniform control flow.
 *
 * Per-sequence scratch (one buffer): lse (T), alpha (T x S), two beta rows, ext (S), the state
 * occupancies of one step (S) and their per-class sums (C). The class sums are accumulated by one
 * thread in state order, as cpu-wasm adds them, then every class's gradient is
 * softmax - occupancy. Sequences whose labels cannot fit (L + repeats > T_b) get loss 0 and
 * gradient 0 (warp-ctc). Invalid lengths or label values — where cpu-wasm throws after reading the
 * data on the host — give NaN loss and gradient here: the device cannot raise an error.
 */
import type { DTypeName } from '@mx/base';
import { type OpRegistry, OpReq, type OpReqType } from '@mx/ops';
import type { GpuBlob, GpuHost } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, main1d, paramsDecl, storageDecl } from '../../../wgsl.js';
import { define, indexReader, requireFloat } from './util.js';

const WG = 64;
const NEG = '-1.0e30';

interface CTCAttrs {
  readonly use_data_lengths: boolean;
  readonly use_label_lengths: boolean;
  readonly blank_label: 'first' | 'last';
}

// Uniforms: 0 T, 1 N, 2 C, 3 Lw, 4 S, 5 region, 6 blank, 7 pad (i32), 8 dataOff, 9 labelOff,
// 10 dlOff, 11 llOff, 12 lossOff, 13 gradOff, 14 wantGrad.
function source(
  dl: boolean,
  ll: boolean,
  addLoss: boolean,
  addGrad: boolean,
  dtypes: readonly DTypeName[],
  bind: ReturnType<typeof bindBlobs>,
): string {
  const { decls, names } = declareArrays(bind, dtypes);
  const [x, lab, dlN, llN, loss, grad] = names as [string, string, string, string, string, string];
  const scratch = storageDecl(bind.buffers.length + 1, 'sc', 'uint32');
  const readers =
    indexReader('rdlab', lab, dtypes[1] as DTypeName) +
    (dl ? indexReader('rddl', dlN, dtypes[2] as DTypeName) : '') +
    (ll ? indexReader('rdll', llN, dtypes[3] as DTypeName) : '');
  const putGrad = (idx: string, v: string) => `${grad}[${idx}] = ${addGrad ? `${grad}[${idx}] + ` : ''}${v};`;
  return `${paramsDecl(15)}${decls}${scratch}${readers}
var<workgroup> wTb: u32;
var<workgroup> wL: u32;
var<workgroup> wStatus: u32;
var<workgroup> wLogZ: f32;
// Non-finite values from bits through a uniform, so they are not constant expressions (an error).
fn bitsf(b: u32) -> f32 { return bitcast<f32>(b | (pu(0u) & 0u)); }
fn rf(k: u32) -> f32 { return bitcast<f32>(sc[k]); }
fn wf(k: u32, v: f32) { sc[k] = bitcast<u32>(v); }
fn log1p_(x: f32) -> f32 { let u = 1.0 + x; if (u == 1.0) { return x; } return log(u) * (x / (u - 1.0)); }
fn logAdd(a: f32, b: f32) -> f32 {
  if (a <= ${NEG} * 0.5) { return b; }
  if (b <= ${NEG} * 0.5) { return a; }
  return max(a, b) + log1p_(exp(-abs(a - b)));
}
fn sync() { storageBarrier(); workgroupBarrier(); }
@compute @workgroup_size(${WG})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) g: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let th = lid.x;
  let b = min(g.x + g.y * nwg.x, pu(1u) - 1u);
  let live = g.x + g.y * nwg.x < pu(1u);
  let T = pu(0u); let N = pu(1u); let C = pu(2u); let Lw = pu(3u); let S = pu(4u);
  let base = b * pu(5u);
  let LSE = base; let AL = base + T; let BE = AL + T * S; let EXT = BE + 2u * S; let OCC = EXT + S;
  let CLS = OCC + S;
  let blank = pu(6u);
  if (th == 0u) {
    var status = 0u;
    var tb = T;
    ${dl ? 'let d = rddl(pu(10u) + b); if (d < 0 || d > i32(T)) { status = 2u; } tb = u32(clamp(d, 0, i32(T)));' : ''}
    var L = Lw;
    ${
      ll
        ? 'let q = rdll(pu(11u) + b); if (q < 0 || q > i32(Lw)) { status = 2u; } L = u32(clamp(q, 0, i32(Lw)));'
        : 'for (var j = 0u; j < Lw; j++) { if (rdlab(pu(9u) + b * Lw + j) == pi(7u)) { L = j; break; } }'
    }
    var rep = 0u;
    for (var j = 0u; j < L; j++) {
      let v = rdlab(pu(9u) + b * Lw + j);
      if (v < 0 || v >= i32(C)) { status = 2u; }
      if (j > 0u && v == rdlab(pu(9u) + b * Lw + j - 1u)) { rep++; }
    }
    if (status == 0u && (L + rep > tb || tb == 0u)) { status = 1u; }
    wTb = tb; wL = L; wStatus = status;
  }
  sync();
  let Tb = wTb; let SL = 2u * wL + 1u; let status = wStatus;
  let ok = live && status == 0u;
  // ext and per-step log-sum-exp of the activations.
  for (var s = th; s < SL && ok; s += ${WG}u) {
    sc[EXT + s] = select(u32(rdlab(pu(9u) + b * Lw + (s - 1u) / 2u)), blank, s % 2u == 0u);
  }
  for (var t = th; t < Tb && ok; t += ${WG}u) {
    let r = pu(8u) + (t * N + b) * C;
    var m = ${x}[r];
    for (var c = 1u; c < C; c++) { m = max(m, ${x}[r + c]); }
    var sum = 0.0;
    for (var c = 0u; c < C; c++) { sum += exp(${x}[r + c] - m); }
    wf(LSE + t, m + log(sum));
  }
  sync();
  // alpha
  for (var t = 0u; t < T; t++) {
    if (ok && t < Tb) {
      let r = pu(8u) + (t * N + b) * C;
      let lse = rf(LSE + t);
      for (var s = th; s < SL; s += ${WG}u) {
        let e = sc[EXT + s];
        let lp = ${x}[r + e] - lse;
        var a = ${NEG};
        if (t == 0u) {
          if (s < 2u) { a = lp; }
        } else {
          let p = AL + (t - 1u) * S;
          a = rf(p + s);
          if (s >= 1u) { a = logAdd(a, rf(p + s - 1u)); }
          if (s >= 2u && e != blank && e != sc[EXT + s - 2u]) { a = logAdd(a, rf(p + s - 2u)); }
          if (a > ${NEG} * 0.5) { a = a + lp; } else { a = ${NEG}; }
        }
        wf(AL + t * S + s, a);
      }
    }
    sync();
  }
  if (th == 0u && live) {
    let last = AL + (Tb - 1u) * S;
    var lz = 0.0;
    if (ok) {
      lz = select(rf(last), logAdd(rf(last + SL - 1u), rf(last + SL - 2u)), SL > 1u);
      if (lz <= ${NEG} * 0.5) { lz = bitsf(0xff800000u); }
    }
    var l = -lz;
    if (status == 2u) { l = bitsf(0x7fc00000u); }
    wLogZ = lz;
    ${loss}[pu(12u) + b] = ${addLoss ? `${loss}[pu(12u) + b] + ` : ''}l;
  }
  if (pu(14u) == 0u) { return; }
  for (var c = th; c < C; c += ${WG}u) { wf(CLS + c, 0.0); }
  sync();
  let logZ = wLogZ;
  // beta, occupancies and gradient rows, from the last step back.
  for (var tt = 0u; tt < T; tt++) {
    let t = T - 1u - tt;
    let r = pu(8u) + (t * N + b) * C;
    let cur = BE + (t & 1u) * S;
    let nxt = BE + ((t + 1u) & 1u) * S;
    if (ok && t < Tb) {
      for (var s = th; s < SL; s += ${WG}u) {
        var v = ${NEG};
        if (t == Tb - 1u) {
          if (s + 2u >= SL) { v = 0.0; }
        } else {
          let nr = r + N * C;
          let nl = rf(LSE + t + 1u);
          let e0 = sc[EXT + s];
          v = rf(nxt + s) + (${x}[nr + e0] - nl);
          if (s + 1u < SL) { v = logAdd(v, rf(nxt + s + 1u) + (${x}[nr + sc[EXT + s + 1u]] - nl)); }
          if (s + 2u < SL) {
            let e2 = sc[EXT + s + 2u];
            if (e2 != blank && e2 != e0) { v = logAdd(v, rf(nxt + s + 2u) + (${x}[nr + e2] - nl)); }
          }
        }
        wf(cur + s, v);
        wf(OCC + s, exp(rf(AL + t * S + s) + v - logZ));
      }
    }
    sync();
    if (ok && t < Tb && th == 0u) {
      for (var s = 0u; s < SL; s++) { let e = sc[EXT + s]; wf(CLS + e, rf(CLS + e) + rf(OCC + s)); }
    }
    sync();
    if (live) {
      let lse = rf(LSE + t);
      for (var c = th; c < C; c += ${WG}u) {
        var v = 0.0;
        if (ok && t < Tb) { v = exp(${x}[r + c] - lse) - rf(CLS + c); wf(CLS + c, 0.0); }
        if (status == 2u && t < Tb) { v = bitsf(0x7fc00000u); }
        ${putGrad('pu(13u) + (t * N + b) * C + c', 'v')}
      }
    }
    sync();
  }
}
`;
}

function ctc(
  rt: WebGpuRuntime,
  a: CTCAttrs,
  inputs: readonly GpuBlob[],
  req: readonly OpReqType[],
  outs: readonly GpuBlob[],
) {
  const data = inputs[0] as GpuBlob;
  const label = inputs[1] as GpuBlob;
  requireFloat('CTCLoss', data, 'data');
  const [T, N, C] = data.shape as [number, number, number];
  const Lw = label.shape[1] as number;
  const loss = outs[0] as GpuBlob;
  const grad = outs[1] as GpuBlob;
  const rLoss = req[0] as OpReqType;
  const rGrad = req[1] as OpReqType;
  const wantGrad = rGrad !== OpReq.null && grad !== undefined && grad.size > 0;
  if (N === 0 || ((rLoss === OpReq.null || loss.size === 0) && !wantGrad)) return;
  const none = { ...data, ptr: null };
  const dl = a.use_data_lengths ? (inputs[2] as GpuBlob) : none;
  const ll = a.use_label_lengths ? (inputs[a.use_data_lengths ? 3 : 2] as GpuBlob) : none;
  // Outputs not written still need a binding: a placeholder stands in for a missing buffer.
  const dummy = rt.createBuffer(4);
  const ph = (b: GpuBlob): GpuBlob =>
    b.ptr === null ? { ...b, ptr: dummy, byteOffset: 0, dtype: 'float32' } : b;
  const lossB = rLoss === OpReq.null ? ph({ ...loss, ptr: null }) : ph(loss);
  const gradB = wantGrad ? grad : ph({ ...data, ptr: null });
  const dataB = ph(data);
  const blobs = [dataB, ph(label), dl, ll, lossB, gradB];
  const bind = bindBlobs(blobs);
  const dtypes = blobs.map((b) => b.dtype);
  const S = 2 * Lw + 1;
  const region = T + T * S + 4 * S + C;
  const scratch = rt.createBuffer(4 * Math.max(1, region * N));
  const addLoss = rLoss === OpReq.add;
  const addGrad = rGrad === OpReq.add;
  const key = `ctc:${a.use_data_lengths ? 1 : 0}${a.use_label_lengths ? 1 : 0}${addLoss ? 1 : 0}${addGrad ? 1 : 0}:${dtypes.join(',')}:${bind.key}`;
  const entry = rt.pipeline(
    key,
    () => source(a.use_data_lengths, a.use_label_lengths, addLoss, addGrad, dtypes, bind),
    15,
  );
  const off = (b: GpuBlob) => (b.ptr === null ? 0 : elemOffset(b));
  const blank = a.blank_label === 'first' ? 0 : C - 1;
  const pad = a.blank_label === 'first' ? 0 : -1;
  const params = [
    T,
    N,
    C,
    Lw,
    S,
    region,
    blank,
    pad >>> 0,
    off(dataB),
    off(blobs[1] as GpuBlob),
    off(dl),
    off(ll),
    off(lossB),
    off(gradB),
    wantGrad ? 1 : 0,
  ];
  rt.dispatch(entry, [...bind.buffers, scratch], params, grid1d(N, 1));
  rt.release(scratch);
  rt.release(dummy);
}

/** _backward_ctc_loss: dx[t, b, c] = ograd[b] * grad[t, b, c]. Uniforms: 0 n, 1 N*C, 2 C, 3-5 offsets. */
function backSource(add: boolean): string {
  return `${paramsDecl(6)}${storageDecl(1, 'og', 'float32')}${storageDecl(2, 'g', 'float32')}${storageDecl(3, 'o', 'float32')}${main1d(
    256,
    'pu(0u)',
    `  let v = og[pu(3u) + (i % pu(1u)) / pu(2u)] * g[pu(4u) + i];
  o[pu(5u) + i] = ${add ? 'o[pu(5u) + i] + ' : ''}v;`,
  )}`;
}

export function installCTC(registry: OpRegistry, gpu: GpuHost): void {
  define<CTCAttrs>(registry, gpu, 'CTCLoss', (a, inputs, req, outs) => ctc(gpu.rt, a, inputs, req, outs));
  define<CTCAttrs>(
    registry,
    gpu,
    '_backward_ctc_loss',
    (_a, [og, g], [r], [dx]) => {
      const out = dx as GpuBlob;
      if (r === OpReq.null || out.size === 0) return;
      const grad = g as GpuBlob;
      const ograd = og as GpuBlob;
      const [, N, C] = grad.shape as [number, number, number];
      const add = r === OpReq.add;
      const rt = gpu.rt;
      const entry = rt.pipeline(`ctc-back:${add ? 1 : 0}`, () => backSource(add), 6);
      const params = [out.size, N * C, C, elemOffset(ograd), elemOffset(grad), elemOffset(out)];
      rt.dispatch(entry, [ograd.ptr, grad.ptr, out.ptr] as GPUBuffer[], params, grid1d(out.size, 256));
    },
    ['float32'],
  );
}
