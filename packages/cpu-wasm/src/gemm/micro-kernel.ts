/**
 * The register-blocked micro-kernel: C[mr×nr] (+)= alpha · Apanel[mr×kc] · Bpanel[kc×nr] where both
 * panels are packed (A: mr values per k step, B: nr values per k step), so the inner loop is only
 * splat-loads of A, vector loads of B and multiply-adds into mr·nr/lanes v128 accumulators.
 *
 * The k loop is deliberately not unrolled: TurboFan issues every load of a loop body before the
 * arithmetic (loads sit on the effect chain, multiply-adds float down to their uses), so unrolling
 * by 2 or 4 keeps all loaded values live at once and spills (measured: 4x8 drops from 52 to 38
 * GFLOP/s). x64 V8 has 15 allocatable xmm registers, so the tile (mr, nr) — mr·nr/lanes
 * accumulators + nr/lanes B vectors + mr A splats — is a per-machine choice made by timing
 * (tile-select.ts). The loop counts on the A pointer to keep scalar overhead minimal. Without relaxed SIMD the
 * multiply and add are two ops (V8 lowers no FMA from them); with `relaxed` the body uses
 * `relaxed_madd` and the module must be built separately (it fails validation where unsupported).
 *
 * Signature: (kc, pa, pb, pc, ldcBytes, alpha, accumulate) — accumulate != 0 adds into C.
 */
import { FunctionBuilder, I32, V128 } from '../wasm/assembler.js';
import type { GemmType, Tile } from './dtype.js';

export function buildMicroKernel(t: GemmType, tile: Tile, relaxed: boolean): FunctionBuilder {
  const { mr, nr } = tile;
  const nv = nr / t.lanes;
  if (!Number.isInteger(nv) || nv < 1) throw new Error(`nr=${nr} is not a multiple of ${t.lanes}`);
  const f = new FunctionBuilder([I32, I32, I32, I32, I32, t.valType, I32]);
  const [KC, PA, PB, PC, LDC, ALPHA, ACC] = [0, 1, 2, 3, 4, 5, 6];
  const acc: number[] = [];
  for (let i = 0; i < mr * nv; i++) acc.push(f.local(V128));
  const b: number[] = [];
  for (let j = 0; j < nv; j++) b.push(f.local(V128));
  const a = f.local(V128);
  const k = f.local(I32);
  const row = f.local(I32);
  const av = f.local(V128);

  for (const x of acc) f.v128Const(new Uint8Array(16)).set(x);

  const step = (u: number): void => {
    for (let j = 0; j < nv; j++)
      f.get(PB)
        .mem('v128.load', (u * nr + j * t.lanes) * t.es, 0)
        .set(b[j] as number);
    for (let i = 0; i < mr; i++) {
      f.get(PA)
        .mem(t.splat, (u * mr + i) * t.es, 0)
        .set(a);
      for (let j = 0; j < nv; j++) {
        const x = acc[i * nv + j] as number;
        if (relaxed)
          f.get(a)
            .get(b[j] as number)
            .get(x)
            .op(`${t.v}.relaxed_madd`)
            .set(x);
        else
          f.get(x)
            .get(a)
            .get(b[j] as number)
            .op(`${t.v}.mul`, `${t.v}.add`)
            .set(x);
      }
    }
  };

  // k loop, counted on the A pointer (one fewer induction variable for V8 to keep).
  f.get(PA)
    .get(KC)
    .i32Const(mr * t.es)
    .op('i32.mul', 'i32.add')
    .set(k);
  f.get(PA).get(k).op('i32.lt_u').if();
  f.loop();
  step(0);
  f.get(PB)
    .i32Const(nr * t.es)
    .op('i32.add')
    .set(PB);
  f.get(PA)
    .i32Const(mr * t.es)
    .op('i32.add')
    .tee(PA);
  f.get(k).op('i32.lt_u').brIf(0);
  f.end();
  f.end();

  // Epilogue: C row i at pc + i*ldc; scale by alpha, optionally add the old C.
  f.get(ALPHA).op(`${t.v}.splat`).set(av);
  f.get(PC).set(row);
  for (let i = 0; i < mr; i++) {
    for (let j = 0; j < nv; j++) {
      const x = acc[i * nv + j] as number;
      f.get(x).get(av).op(`${t.v}.mul`).set(x);
    }
    f.get(ACC).if();
    for (let j = 0; j < nv; j++) {
      const x = acc[i * nv + j] as number;
      f.get(row)
        .get(x)
        .get(row)
        .mem('v128.load', j * 16, 0)
        .op(`${t.v}.add`)
        .mem('v128.store', j * 16, 0);
    }
    f.else();
    for (let j = 0; j < nv; j++) {
      f.get(row)
        .get(acc[i * nv + j] as number)
        .mem('v128.store', j * 16, 0);
    }
    f.end();
    if (i + 1 < mr) f.get(row).get(LDC).op('i32.add').set(row);
  }
  return f;
}
