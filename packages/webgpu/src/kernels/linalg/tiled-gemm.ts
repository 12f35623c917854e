/**
 * The one tiled-GEMM shader skeleton every matrix product of the backend is generated from (dot,
 * batch_dot, gemm2, FullyConnected, and the implicit-GEMM convolutions): C = alpha · A·B over a
 * batch, with how A and B are *read* and how C is *written* supplied by the caller as WGSL
 * snippets. So a transposed operand, a strided batch or an im2col gather is folded into the
 * tile-load path — never materialised — and one pipeline serves every shape (sizes, strides and
 * offsets are uniforms).
 *
 * Design (the classic register-blocked SGEMM): 16×16 invocations per workgroup own a BM×BN output
 * tile; each invocation accumulates a (BM/16)×(BN/16) register block as vec4 rows. Per step of BK
 * along K, the workgroup stages an A tile (BK×BM) and a B tile (BK×BN) in workgroup memory, k-major
 * so the inner loop reads vec4s; the next step's global loads are issued into registers before the
 * current tile is consumed (software pipelining). An invocation's rows are ty·4 + 64·i (+0..3) and
 * its columns tx·4 + 64·j, so the vec4 reads of a warp hit distinct banks. Tile loads map
 * consecutive invocations to the operand's contiguous axis (coalesced global reads); staged rows
 * are padded by 4 floats against bank conflicts when the contiguous axis is K. Edges are guarded.
 *
 * Grid: x = column tiles, y = row tiles, z = batch × K-splits (each with a base word, so more than
 * 65535 tiles take several dispatches). Uniform words 0..8 belong to the skeleton (see W);
 * callers' own words start at USER_WORDS.
 */
import type { WebGpuRuntime } from '../../runtime.js';
import { paramsDecl } from '../../wgsl.js';

export interface TileConfig {
  readonly name: string;
  /** Output rows and columns per workgroup (64 or 128) and the K step. */
  readonly bm: 64 | 128;
  readonly bn: 64 | 128;
  readonly bk: 8 | 16;
}

export const TILES = {
  small: { name: 's', bm: 64, bn: 64, bk: 16 },
  wide: { name: 'w', bm: 64, bn: 128, bk: 16 },
  large: { name: 'l', bm: 128, bn: 128, bk: 8 },
} as const satisfies Record<string, TileConfig>;

/** Uniform words of the skeleton. */
export const W = {
  M: 0,
  N: 1,
  K: 2,
  /** K per split (a multiple of bk; ≥ K without split-K). */
  KCHUNK: 3,
  SPLITS: 4,
  YBASE: 5,
  ZBASE: 6,
  /** alpha as f32 bits. */
  ALPHA: 7,
  XBASE: 8,
} as const;
export const USER_WORDS = 9;

/** How one operand tile is read. x is the row of A (an M index) or the column of B (an N index). */
export interface OperandGen {
  /** Consecutive x are adjacent in memory (else consecutive k are): picks the coalesced mapping. */
  readonly contigX: boolean;
  /**
   * Statements run once per invocation for load slot `slot`, whose x is fixed for the whole K loop
   * (`x` is a u32 expression, valid or not; `ok` says x < extent). Names must be suffixed by slot.
   */
  readonly setup?: (slot: number, x: string, ok: string) => string;
  /** f32 expression of element (k, x), evaluated only when x and k are in range. */
  readonly load: (slot: number, k: string, x: string) => string;
}

export interface GemmShader {
  /** Distinguishes everything the hooks' WGSL depends on (part of the pipeline key). */
  readonly key: string;
  readonly tile: TileConfig;
  readonly a: OperandGen;
  readonly b: OperandGen;
  /** Extra module-scope WGSL: storage bindings (from binding 1 on), helper functions. */
  readonly decls: string;
  /** Statements run once per invocation, after `bz` (batch index) and `split` are known. */
  readonly batchSetup?: string;
  /** Statements writing f32 `v` = alpha·(A·B)[row, col] (row, col in range: the skeleton guards). */
  readonly store: (row: string, col: string, v: string) => string;
  /** Uniform words in all (USER_WORDS + the caller's). */
  readonly paramWords: number;
}

const WG = 256;

function slotMap(contigX: boolean, extent: number, bk: number, slot: number): { k: string; x: string } {
  const idx = slot * WG;
  if (contigX) {
    // extent divides 256: x = tid % extent is fixed per slot, k advances by 256 / extent per slot.
    return { x: `(tid % ${extent}u)`, k: `(tid / ${extent}u + ${idx / extent}u)` };
  }
  return { x: `(tid / ${bk}u + ${idx / bk}u)`, k: `(tid % ${bk}u)` };
}

function operandCode(
  name: 'A' | 'B',
  g: OperandGen,
  extent: number,
  bk: number,
  limit: string,
  base: string,
): { setup: string; load: string; store: string; slots: number } {
  const slots = (bk * extent) / WG;
  const stride = extent + 4;
  let setup = '';
  let load = '';
  let store = '';
  for (let s = 0; s < slots; s++) {
    const { k, x } = slotMap(g.contigX, extent, bk, s);
    setup += `  let ${name}x${s} = ${base} + ${x};\n  let ${name}ok${s} = ${name}x${s} < ${limit};\n  let ${name}k${s} = ${k};\n`;
    if (g.setup) setup += g.setup(s, `${name}x${s}`, `${name}ok${s}`);
    setup += `  var ${name}r${s} = 0.0;\n`;
    load += `    ${name}r${s} = 0.0;
    if (${name}ok${s} && k0 + ${name}k${s} < gK) { ${name}r${s} = ${g.load(s, `(k0 + ${name}k${s})`, `${name}x${s}`)}; }\n`;
    // Staged at [k][x] with rows of extent + 4 floats.
    const flat = `${name}k${s} * ${stride}u + (${x})`;
    store += `    ${name}s[(${flat}) >> 2u][(${flat}) & 3u] = ${name}r${s};\n`;
  }
  return { setup, load, store, slots };
}

/** The WGSL of a GEMM shader (entry point `main`). */
export function gemmSource(sh: GemmShader): string {
  const { bm, bn, bk } = sh.tile;
  const tm4 = bm / 64;
  const tn4 = bn / 64;
  const sa = (bm + 4) / 4;
  const sb = (bn + 4) / 4;
  const A = operandCode('A', sh.a, bm, bk, 'gM', 'm0');
  const B = operandCode('B', sh.b, bn, bk, 'gN', 'n0');
  let compute = '';
  for (let kk = 0; kk < bk; kk++) {
    for (let i = 0; i < tm4; i++) compute += `    let a${kk}_${i} = As[${kk * sa + i * 16}u + ty];\n`;
    for (let j = 0; j < tn4; j++) compute += `    let b${kk}_${j} = Bs[${kk * sb + j * 16}u + tx];\n`;
    for (let i = 0; i < tm4; i++)
      for (let r = 0; r < 4; r++)
        for (let j = 0; j < tn4; j++) {
          const c = (i * 4 + r) * tn4 + j;
          compute += `    acc[${c}] = fma(vec4<f32>(a${kk}_${i}[${r}]), b${kk}_${j}, acc[${c}]);\n`;
        }
  }
  let epilogue = '';
  for (let i = 0; i < tm4; i++)
    for (let r = 0; r < 4; r++) {
      const row = `m0 + ${i * 64 + r}u + ty * 4u`;
      epilogue += `  { let row = ${row};\n  if (row < gM) {\n`;
      for (let j = 0; j < tn4; j++)
        for (let c = 0; c < 4; c++) {
          const acc = `acc[${(i * 4 + r) * tn4 + j}][${c}]`;
          epilogue += `    { let col = n0 + ${j * 64 + c}u + tx * 4u; if (col < gN) { let v = alpha * ${acc}; ${sh.store('row', 'col', 'v')} } }\n`;
        }
      epilogue += '  } }\n';
    }
  return `${paramsDecl(sh.paramWords)}${sh.decls}
var<workgroup> As: array<vec4<f32>, ${bk * sa}>;
var<workgroup> Bs: array<vec4<f32>, ${bk * sb}>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let tx = lid.x;
  let ty = lid.y;
  let tid = ty * 16u + tx;
  let gM = pu(${W.M}u);
  let gN = pu(${W.N}u);
  let gK = pu(${W.K}u);
  let alpha = pf(${W.ALPHA}u);
  let splits = pu(${W.SPLITS}u);
  let z = wid.z + pu(${W.ZBASE}u);
  let bz = z / splits;
  let split = z % splits;
  let m0 = (wid.y + pu(${W.YBASE}u)) * ${bm}u;
  let n0 = (wid.x + pu(${W.XBASE}u)) * ${bn}u;
  let kBegin = split * pu(${W.KCHUNK}u);
  let kEnd = min(gK, kBegin + pu(${W.KCHUNK}u));
${sh.batchSetup ?? ''}
${A.setup}${B.setup}
  var acc: array<vec4<f32>, ${tm4 * tn4 * 4}>;
  var k0 = kBegin;
${A.load}${B.load}
  for (; k0 < kEnd; ) {
${A.store}${B.store}    workgroupBarrier();
    k0 = k0 + ${bk}u;
    if (k0 < kEnd) {
${A.load}${B.load}    }
${compute}    workgroupBarrier();
  }
${epilogue}}
`;
}

/** Pick the tile for an m×n product over `batch` matrices. */
export function pickTile(m: number, n: number, batch: number): TileConfig {
  const tiles = (bm: number, bn: number) => Math.ceil(m / bm) * Math.ceil(n / bn) * batch;
  if (m > 64 && n > 64 && tiles(128, 128) >= 96) return TILES.large;
  if (n > 64 && tiles(64, 128) >= 32) return TILES.wide;
  return TILES.small;
}

export interface GemmLaunch {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch: number;
  readonly alpha: number;
  /** K splits (grid z = batch × splits); 1 without split-K. */
  readonly splits?: number;
  /** The caller's uniform words (from USER_WORDS on). */
  readonly user: readonly number[];
}

const f32bits = (v: number): number => new Uint32Array(new Float32Array([v]).buffer)[0] as number;

/**
 * Dispatch `sh` over the launch (more than 65535 tiles along an axis take several dispatches, via
 * the X/Y/Z base words).
 */
export function runGemm(
  rt: WebGpuRuntime,
  sh: GemmShader,
  buffers: readonly GPUBuffer[],
  l: GemmLaunch,
): void {
  if (l.m === 0 || l.n === 0 || l.batch === 0) return;
  const entry = rt.pipeline(`gemm:${sh.tile.name}:${sh.key}`, () => gemmSource(sh), sh.paramWords);
  const { bm, bn, bk } = sh.tile;
  const splits = Math.max(1, l.splits ?? 1);
  const kChunk = splits === 1 ? Math.max(l.k, 1) : Math.ceil(l.k / splits / bk) * bk;
  const gx = Math.ceil(l.n / bn);
  const gy = Math.ceil(l.m / bm);
  const gz = l.batch * splits;
  const MAX = 65535;
  for (let z0 = 0; z0 < gz; z0 += MAX)
    for (let y0 = 0; y0 < gy; y0 += MAX)
      for (let x0 = 0; x0 < gx; x0 += MAX) {
        const params = new Uint32Array(sh.paramWords);
        params[W.M] = l.m;
        params[W.N] = l.n;
        params[W.K] = l.k;
        params[W.KCHUNK] = kChunk;
        params[W.SPLITS] = splits;
        params[W.YBASE] = y0;
        params[W.ZBASE] = z0;
        params[W.XBASE] = x0;
        params[W.ALPHA] = f32bits(l.alpha);
        l.user.forEach((v, i) => {
          params[USER_WORDS + i] = v >>> 0;
        });
        rt.dispatch(entry, buffers, params, [
          Math.min(MAX, gx - x0),
          Math.min(MAX, gy - y0),
          Math.min(MAX, gz - z0),
        ]);
      }
}
