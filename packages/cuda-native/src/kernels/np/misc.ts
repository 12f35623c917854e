/**
 * np misc kernels: `_npi_polyval` (Horner in double per element, cast once, as cpu-wasm's
 * np/misc/numeric-kernels.ts) and its gradient `_npi_backward_polyval` (float only, as MXNet's):
 * d/dx = p'(x)·g by a thread per element, d/dp_k = Σ_e x_e^(deg-k)·g_e by a thread per
 * coefficient (coefficient counts are small; powers by repeated multiplication, as cpu-wasm).
 */
import type { DTypeName } from '@mx/base';
import type { OpRegistry } from '@mx/ops';
import { loadC } from '../../cuda-c.js';
import { CUDA, type CudaHost, cudaKernel } from '../../kernel.js';
import { castFromDouble, i64, isAdd, launch1d, ptr, skip, source, st, storeC } from './common.js';

const MISC_DTYPES: readonly DTypeName[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8'];
const FLOAT_DTYPES: readonly DTypeName[] = ['float32', 'float64'];

function polyvalSource(pt: DTypeName, xt: DTypeName, yt: DTypeName, add: boolean) {
  const op = '_npi_polyval';
  return source(op, `${pt}|${xt}|${yt}|${add}`, (entry) => {
    const [cd, cast] = castFromDouble(yt, op);
    return `${cd}extern "C" __global__ void ${entry}(const ${st(pt, op)}* p, const ${st(xt, op)}* x, ${st(yt, op)}* y, long long n, long long np) {
  MX_GRID_LOOP(e, n) {
    double v = (double)${loadC('x', xt, 'e')}, s = 0.0;
    for (long long k = 0; k < np; k++) s = s * v + (double)${loadC('p', pt, 'k')};
    ${storeC(yt, 'y', 'e', `${cast}(s)`, add)}
  }
}
`;
  });
}

interface GradTypes {
  readonly g: DTypeName;
  readonly p: DTypeName;
  readonly x: DTypeName;
}

function gradXSource(ty: GradTypes, t: DTypeName, add: boolean) {
  const op = '_npi_backward_polyval';
  return source(op, `gx|${ty.g}|${ty.p}|${ty.x}|${t}|${add}`, (entry) => {
    const s = st(t, op);
    return `extern "C" __global__ void ${entry}(const ${st(ty.g, op)}* g, const ${st(ty.p, op)}* p, const ${st(ty.x, op)}* x, ${s}* gx, long long n, long long np) {
  MX_GRID_LOOP(e, n) {
    double v = (double)${loadC('x', ty.x, 'e')}, d = 0.0;
    long long deg = np - 1;
    for (long long k = 0; k < deg; k++) d = d * v + (double)${loadC('p', ty.p, 'k')} * (double)(deg - k);
    ${storeC(t, 'gx', 'e', `(${s})(d * (double)${loadC('g', ty.g, 'e')})`, add)}
  }
}
`;
  });
}

function gradPSource(ty: GradTypes, t: DTypeName, add: boolean) {
  const op = '_npi_backward_polyval';
  return source(op, `gp|${ty.g}|${ty.x}|${t}|${add}`, (entry) => {
    const s = st(t, op);
    return `extern "C" __global__ void ${entry}(const ${st(ty.g, op)}* g, const ${st(ty.x, op)}* x, ${s}* gp, long long n, long long np) {
  MX_GRID_LOOP(k, np) {
    long long powr = np - 1 - k;
    double acc = 0.0;
    for (long long e = 0; e < n; e++) {
      double v = (double)${loadC('x', ty.x, 'e')}, pw = 1.0;
      for (long long j = 0; j < powr; j++) pw *= v;
      acc += pw * (double)${loadC('g', ty.g, 'e')};
    }
    ${storeC(t, 'gp', 'k', `(${s})acc`, add)}
  }
}
`;
  });
}

export function installNpMisc(registry: OpRegistry, host: CudaHost): void {
  if (registry.has('_npi_polyval')) {
    registry.registerKernel(
      '_npi_polyval',
      CUDA,
      cudaKernel(
        host,
        '_npi_polyval',
        (_a, [p, x], req, [y]) => {
          const op = '_npi_polyval';
          if (p === undefined || x === undefined || y === undefined || skip(req[0]) || y.size === 0) return;
          launch1d(host.rt, polyvalSource(p.dtype, x.dtype, y.dtype, isAdd(req[0])), y.size, [
            ptr(p, op),
            ptr(x, op),
            ptr(y, op),
            i64(y.size),
            i64(p.size),
          ]);
        },
        MISC_DTYPES,
      ),
    );
  }
  if (registry.has('_npi_backward_polyval')) {
    registry.registerKernel(
      '_npi_backward_polyval',
      CUDA,
      cudaKernel(
        host,
        '_npi_backward_polyval',
        (_a, [g, p, x], req, [gp, gx]) => {
          const op = '_npi_backward_polyval';
          if (g === undefined || p === undefined || x === undefined) return;
          const rt = host.rt;
          const ty: GradTypes = { g: g.dtype, p: p.dtype, x: x.dtype };
          if (gp !== undefined && !skip(req[0]) && gp.size > 0) {
            launch1d(rt, gradPSource(ty, gp.dtype, isAdd(req[0])), gp.size, [
              ptr(g, op),
              ptr(x, op),
              ptr(gp, op),
              i64(x.size),
              i64(p.size),
            ]);
          }
          if (gx !== undefined && !skip(req[1]) && gx.size > 0) {
            launch1d(rt, gradXSource(ty, gx.dtype, isAdd(req[1])), gx.size, [
              ptr(g, op),
              ptr(p, op),
              ptr(x, op),
              ptr(gx, op),
              i64(x.size),
              i64(p.size),
            ]);
          }
        },
        FLOAT_DTYPES,
      ),
    );
  }
}
