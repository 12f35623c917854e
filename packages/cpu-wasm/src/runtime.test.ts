/**
 * CpuWasmRuntime's memory helpers: `zeroBytes` / `zero` clear exactly their range (through wasm's
 * memory.fill) and leave the bytes around it alone, for any byte offset and dtype.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { WasmMemory } from './memory.js';
import { CpuWasmRuntime, detectFeatures } from './runtime.js';

const rt = new CpuWasmRuntime(new WasmMemory({ initialPages: 4 }), detectFeatures());
const base = rt.memory.allocator.alloc(4096) as number;
afterAll(() => rt.memory.allocator.free(base, 4096));

describe('CpuWasmRuntime memory helpers', () => {
  it('zeroBytes clears [addr, addr + bytes) and nothing else', () => {
    for (const [from, bytes] of [
      [0, 1],
      [3, 17],
      [64, 1000],
      [5, 0],
    ] as const) {
      const u8 = new Uint8Array(rt.memory.buffer, base, 4096);
      u8.fill(0xab);
      rt.zeroBytes(base + from, bytes);
      const got = new Uint8Array(rt.memory.buffer, base, 4096);
      for (let i = 0; i < 4096; i++) {
        const inside = i >= from && i < from + bytes;
        if (got[i] !== (inside ? 0 : 0xab)) throw new Error(`byte ${i} (${from}, ${bytes}): ${got[i]}`);
      }
    }
  });

  it('zero clears a blob at its byte offset, for 8-byte and 1-byte dtypes', () => {
    new Uint8Array(rt.memory.buffer, base, 4096).fill(0xff);
    rt.zero({ ptr: base, byteOffset: 16, shape: [3], dtype: 'int64', size: 3 });
    rt.zero({ ptr: base, byteOffset: 100, shape: [2, 3], dtype: 'bool', size: 6 });
    const got = Array.from(new Uint8Array(rt.memory.buffer, base, 128));
    const want = got.map((_, i) => ((i >= 16 && i < 40) || (i >= 100 && i < 106) ? 0 : 0xff));
    expect(got).toEqual(want);
  });
});
