/**
 * The second pass of a split-K weight gradient: dW (+)= Σ_s partial[s], the partials laid out
 * back to back in a scratch buffer. One invocation per weight element, so req add is a plain
 * read-modify-write and no float atomics are needed.
 */
import type { GpuBlob } from '../../../kernel.js';
import { grid1d, type WebGpuRuntime } from '../../../runtime.js';
import { bindBlobs, declareArrays, elemOffset, main1d, paramsDecl } from '../../../wgsl.js';

const WG = 256;

export function splitSum(
  rt: WebGpuRuntime,
  scratch: GPUBuffer,
  splits: number,
  dw: GpuBlob,
  acc: boolean,
): void {
  const total = dw.size;
  if (total === 0) return;
  const src: GpuBlob = {
    ptr: scratch,
    byteOffset: 0,
    shape: [splits * total],
    dtype: 'float32',
    size: splits * total,
  };
  const b = bindBlobs([src, dw]);
  const { decls, names } = declareArrays(b, ['float32', 'float32']);
  const [S, D] = names as [string, string];
  const entry = rt.pipeline(
    `conv-split-sum:${acc ? 1 : 0}:${b.key}`,
    () => `${paramsDecl(4)}${decls}
${main1d(
  WG,
  'pu(0u)',
  `  var s = 0.0;
  for (var k = 0u; k < pu(1u); k++) { s += ${S}[k * pu(0u) + i]; }
  let o = pu(2u) + i;
  ${D}[o] = ${acc ? `${D}[o] + ` : ''}s;`,
)}`,
    4,
  );
  rt.dispatch(entry, b.buffers, [total, splits, elemOffset(dw)], grid1d(total, WG));
}
