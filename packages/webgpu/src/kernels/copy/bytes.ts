/**
 * Byte-granular copies inside GPU memory. WebGPU's own `copyBufferToBuffer` and `writeBuffer`
 * need 4-byte aligned offsets and sizes, and refuse overlapping ranges of one buffer; 1- and
 * 2-byte dtypes (bool, float16) and their views break both. This kernel assembles each
 * destination word from the source bytes, one invocation per word, keeping the word's bytes
 * outside the range — so the backend's write/copy work for any offset and size.
 */
import { grid1d, type WebGpuRuntime } from '../../runtime.js';
import { main1d, paramsDecl } from '../../wgsl.js';

const WG = 256;

function source(same: boolean): string {
  const src = same ? 'b0' : 'b1';
  return `${paramsDecl(4)}@group(0) @binding(1) var<storage, read_write> b0: array<u32>;
${same ? '' : '@group(0) @binding(2) var<storage, read_write> b1: array<u32>;\n'}${main1d(
  WG,
  'pu(3u)',
  `  let dstOff = pu(0u); let srcOff = pu(1u); let n = pu(2u);
  let w = (dstOff >> 2u) + i;
  var word = b0[w];
  for (var k = 0u; k < 4u; k++) {
    let b = w * 4u + k;
    if (b >= dstOff && b < dstOff + n) {
      let s = srcOff + (b - dstOff);
      let v = (${src}[s >> 2u] >> ((s & 3u) * 8u)) & 0xffu;
      word = (word & ~(0xffu << (k * 8u))) | (v << (k * 8u));
    }
  }
  b0[w] = word;`,
)}`;
}

/** Copy `n` bytes from `src` at byte `srcOff` to `dst` at byte `dstOff` (any alignment; ranges must not overlap). */
export function copyBytes(
  rt: WebGpuRuntime,
  dst: GPUBuffer,
  dstOff: number,
  src: GPUBuffer,
  srcOff: number,
  n: number,
): void {
  if (n <= 0) return;
  if (dstOff % 4 === 0 && srcOff % 4 === 0 && n % 4 === 0 && dst !== src) {
    rt.copyBuffer(src, srcOff, dst, dstOff, n);
    return;
  }
  const same = dst === src;
  const words = Math.ceil((dstOff + n) / 4) - Math.floor(dstOff / 4);
  const entry = rt.pipeline(`copy-bytes:${same ? 1 : 2}`, () => source(same), 4);
  rt.dispatch(entry, same ? [dst] : [dst, src], [dstOff, srcOff, n, words], grid1d(words, WG));
}
