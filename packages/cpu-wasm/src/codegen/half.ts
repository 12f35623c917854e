/**
 * float16 and bfloat16 bit conversions for Cast and the CPU-side kernels: the one implementation
 * lives in @mx/base (half.ts), shared with the host conversions and printing.
 */
export { fromBFloat16Bits, fromHalfBits, toBFloat16Bits, toHalfBits } from '@mx/base';
