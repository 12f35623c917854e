/**
 * The replay program of the host emulation (host-emulate.ts): the recorded commands encoded into
 * one binary file, and the C++ driver that maps the arena, replays them and runs each launch's
 * blocks in turn, a block's threads as real threads. Threads start one at a time in a fixed order
 * and each runs alone until it first waits (a barrier, a shuffle) or ends, so a kernel whose
 * result depends on which thread writes last gives the same answer every run — and the driver can
 * run everything in reverse order (blocks last to first, threads highest first; argv[3] =
 * "reverse") so such a kernel shows up as a mismatch between the two orders.
 */
import type { CudaSource, KernelArg } from '../cuda-c.js';
import { GEMM_FLOAT_OPERANDS, type GemmCall, gemmOperands, packArgs, signatureOf } from '../runtime.js';
import { HOST_PRELUDE } from './host-prelude.js';

/** Where the replay program maps its arena: device addresses are real host addresses. */
export const ARENA_BASE = 0x100000000000;

/** One recorded command of the replay file. */
export type Command =
  | { readonly c: 'write'; readonly addr: number; readonly bytes: Uint8Array }
  | {
      readonly c: 'launch';
      readonly src: number;
      readonly grid: readonly number[];
      readonly block: readonly number[];
      readonly args: Uint8Array;
    }
  | { readonly c: 'copy'; readonly dst: number; readonly src: number; readonly n: number }
  | { readonly c: 'memset'; readonly ptr: number; readonly value: number; readonly n: number }
  | { readonly c: 'read'; readonly addr: number; readonly n: number }
  | { readonly c: 'gemm'; readonly call: GemmCall };

const GEMM_DT: Readonly<Record<string, number>> = { float32: 0, float64: 1, float16: 2, bfloat16: 3 };

/** The C++ wrapper calling source i's entry with arguments unpacked from a packArgs block. */
function wrapper(src: CudaSource, i: number): string {
  const m = new RegExp(`void (?:__launch_bounds__\\([^)]*\\) )?${src.entry}\\(([^)]*)\\)`).exec(src.code);
  const params = (m?.[1] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const kinds = signatureOf(src.code, src.entry);
  if (typeof kinds === 'string') throw new Error(kinds);
  const dummy = kinds.map((t): KernelArg => (t === 'dims' ? { t, v: [] } : { t, v: 0 }));
  const { offsets } = packArgs(dummy);
  const locals = params
    .map((p, k) => {
      const type = p.replace(/\s*\b\w+$/, '');
      return `  ${type} a${k}; memcpy((void*)&a${k}, a + ${offsets[k]}, sizeof(a${k}));\n`;
    })
    .join('');
  return `static void call_${i}(const unsigned char* a) {\n${locals}  mx_emu_${i}::${src.entry}(${params.map((_, k) => `a${k}`).join(', ')});\n}\n`;
}

/**
 * The C++ program replaying the commands over sources `srcs`; `powLow`: the device's pow one ulp
 * low (host-prelude.ts, MX_EMU_POW_LOW).
 */
export function program(srcs: readonly CudaSource[], arenaBytes: number, powLow = false): string {
  let text = (powLow ? '#define MX_EMU_POW_LOW 1\n' : '') + HOST_PRELUDE;
  srcs.forEach((s, i) => {
    text += `namespace mx_emu_${i} {\n${s.code}\n}\n${wrapper(s, i)}`;
  });
  const cases = srcs.map((_, i) => `    case ${i}: call_${i}(a); break;\n`).join('');
  return `${text}
static void dispatch(unsigned i, const unsigned char* a) {
  switch (i) {
${cases}    default: abort();
  }
}
int main(int argc, char** argv) {
  void* base = mmap((void*)${ARENA_BASE}ULL, ${arenaBytes}ULL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (base != (void*)${ARENA_BASE}ULL) { fprintf(stderr, "arena mmap failed\\n"); return 2; }
  FILE* f = fopen(argv[1], "rb");
  FILE* out = fopen(argv[2], "wb");
  const bool reverse = argc > 3 && strcmp(argv[3], "reverse") == 0;
  unsigned long long h[4];
  unsigned op;
  while (fread(&op, 4, 1, f) == 1 && op != 0) {
    if (op == 1) { fread(h, 8, 2, f); fread((void*)h[0], 1, h[1], f); }
    else if (op == 2) {
      unsigned hd[8]; fread(hd, 4, 8, f);
      unsigned char* a = (unsigned char*)malloc(hd[7] + 8); fread(a, 1, hd[7], f);
      gridDim = {hd[1], hd[2], hd[3]}; blockDim = {hd[4], hd[5], hd[6]};
      unsigned nt = hd[4] * hd[5] * hd[6];
      unsigned long long nb = (unsigned long long)hd[1] * hd[2] * hd[3];
      for (unsigned long long q = 0; q < nb; q++) {
        unsigned long long b = reverse ? nb - 1 - q : q;
        unsigned bx = (unsigned)(b % hd[1]), by = (unsigned)((b / hd[1]) % hd[2]), bz = (unsigned)(b / ((unsigned long long)hd[1] * hd[2]));
        std::barrier<> bar((std::ptrdiff_t)nt);
        mx_block_bar = &bar;
        std::vector<std::barrier<>*> warps;
        for (unsigned w = 0; w * 32 < nt; w++) warps.push_back(new std::barrier<>((std::ptrdiff_t)(nt - w * 32 < 32 ? nt - w * 32 : 32)));
        mx_warp_bar = warps;
        std::unique_ptr<std::atomic<int>[]> turns(new std::atomic<int>[nt]);
        for (unsigned p = 0; p < nt; p++) turns[p].store(p == 0 ? 1 : 0);
        mx_turns = turns.get();
        mx_turn_count = nt;
        std::vector<std::thread> ts;
        for (unsigned p = 0; p < nt; p++) ts.emplace_back([&, p] {
          unsigned t = reverse ? nt - 1 - p : p;
          blockIdx = {bx, by, bz};
          threadIdx = {t % hd[4], (t / hd[4]) % hd[5], t / (hd[4] * hd[5])};
          mx_turn_pos = p;
          mx_turn_passed = false;
          while (turns[p].load() == 0) turns[p].wait(0);
          dispatch(hd[0], a);
          mx_pass_turn();
        });
        for (auto& th : ts) th.join();
        for (auto* w : warps) delete w;
      }
      free(a);
    } else if (op == 3) { fread(h, 8, 3, f); memmove((void*)h[0], (void*)h[1], h[2]); }
    else if (op == 4) { fread(h, 8, 3, f); memset((void*)h[0], (int)h[1], h[2]); }
    else if (op == 5) { fread(h, 8, 2, f); fwrite((void*)h[0], 1, h[1], out); }
    else if (op == 6) { long long g[18]; fread(g, 8, 18, f); mx_emu_gemm(g); }
  }
  fclose(out);
  return 0;
}
`;
}

export function encode(cmds: readonly Command[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const u32 = (...v: number[]) => parts.push(new Uint8Array(new Uint32Array(v).buffer));
  const u64 = (...v: number[]) =>
    parts.push(new Uint8Array(new BigUint64Array(v.map((x) => BigInt(x))).buffer));
  for (const c of cmds) {
    if (c.c === 'write') {
      u32(1);
      u64(c.addr, c.bytes.byteLength);
      parts.push(c.bytes);
    } else if (c.c === 'launch') {
      u32(2, c.src, ...c.grid, ...c.block, c.args.byteLength);
      parts.push(c.args);
    } else if (c.c === 'copy') {
      u32(3);
      u64(c.dst, c.src, c.n);
    } else if (c.c === 'memset') {
      u32(4);
      u64(c.ptr, c.value, c.n);
    } else if (c.c === 'gemm') {
      const g = c.call;
      u32(6);
      const words = new BigInt64Array(18);
      const f = new Float64Array(words.buffer);
      [...gemmOperands(g), GEMM_DT[g.dtype] ?? 0].forEach((v, i) => {
        if (GEMM_FLOAT_OPERANDS.includes(i)) f[i] = v;
        else words[i] = BigInt(v);
      });
      parts.push(new Uint8Array(words.buffer));
    } else {
      u32(5);
      u64(c.addr, c.n);
    }
  }
  u32(0);
  return Buffer.concat(parts);
}
