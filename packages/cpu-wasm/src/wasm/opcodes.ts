/**
 * WebAssembly opcodes by their text-format names (core MVP, sign extension, saturating truncation,
 * bulk memory, threads/atomics, 128-bit SIMD and relaxed SIMD), as the byte sequences the binary
 * format uses. Kept as data so the assembler stays one small class and a reader can check any
 * opcode against the spec table by name.
 */

const plain: Record<string, number> = {
  unreachable: 0x00,
  nop: 0x01,
  else: 0x05,
  end: 0x0b,
  return: 0x0f,
  drop: 0x1a,
  select: 0x1b,
  'i32.eqz': 0x45,
  'i32.eq': 0x46,
  'i32.ne': 0x47,
  'i32.lt_s': 0x48,
  'i32.lt_u': 0x49,
  'i32.gt_s': 0x4a,
  'i32.gt_u': 0x4b,
  'i32.le_s': 0x4c,
  'i32.le_u': 0x4d,
  'i32.ge_s': 0x4e,
  'i32.ge_u': 0x4f,
  'i64.eqz': 0x50,
  'i64.eq': 0x51,
  'i64.ne': 0x52,
  'i64.lt_s': 0x53,
  'i64.lt_u': 0x54,
  'i64.gt_s': 0x55,
  'i64.gt_u': 0x56,
  'i64.le_s': 0x57,
  'i64.le_u': 0x58,
  'i64.ge_s': 0x59,
  'i64.ge_u': 0x5a,
  'f32.eq': 0x5b,
  'f32.ne': 0x5c,
  'f32.lt': 0x5d,
  'f32.gt': 0x5e,
  'f32.le': 0x5f,
  'f32.ge': 0x60,
  'f64.eq': 0x61,
  'f64.ne': 0x62,
  'f64.lt': 0x63,
  'f64.gt': 0x64,
  'f64.le': 0x65,
  'f64.ge': 0x66,
  'i32.clz': 0x67,
  'i32.ctz': 0x68,
  'i32.popcnt': 0x69,
  'i32.add': 0x6a,
  'i32.sub': 0x6b,
  'i32.mul': 0x6c,
  'i32.div_s': 0x6d,
  'i32.div_u': 0x6e,
  'i32.rem_s': 0x6f,
  'i32.rem_u': 0x70,
  'i32.and': 0x71,
  'i32.or': 0x72,
  'i32.xor': 0x73,
  'i32.shl': 0x74,
  'i32.shr_s': 0x75,
  'i32.shr_u': 0x76,
  'i32.rotl': 0x77,
  'i32.rotr': 0x78,
  'i64.clz': 0x79,
  'i64.ctz': 0x7a,
  'i64.popcnt': 0x7b,
  'i64.add': 0x7c,
  'i64.sub': 0x7d,
  'i64.mul': 0x7e,
  'i64.div_s': 0x7f,
  'i64.div_u': 0x80,
  'i64.rem_s': 0x81,
  'i64.rem_u': 0x82,
  'i64.and': 0x83,
  'i64.or': 0x84,
  'i64.xor': 0x85,
  'i64.shl': 0x86,
  'i64.shr_s': 0x87,
  'i64.shr_u': 0x88,
  'i64.rotl': 0x89,
  'i64.rotr': 0x8a,
  'f32.abs': 0x8b,
  'f32.neg': 0x8c,
  'f32.ceil': 0x8d,
  'f32.floor': 0x8e,
  'f32.trunc': 0x8f,
  'f32.nearest': 0x90,
  'f32.sqrt': 0x91,
  'f32.add': 0x92,
  'f32.sub': 0x93,
  'f32.mul': 0x94,
  'f32.div': 0x95,
  'f32.min': 0x96,
  'f32.max': 0x97,
  'f32.copysign': 0x98,
  'f64.abs': 0x99,
  'f64.neg': 0x9a,
  'f64.ceil': 0x9b,
  'f64.floor': 0x9c,
  'f64.trunc': 0x9d,
  'f64.nearest': 0x9e,
  'f64.sqrt': 0x9f,
  'f64.add': 0xa0,
  'f64.sub': 0xa1,
  'f64.mul': 0xa2,
  'f64.div': 0xa3,
  'f64.min': 0xa4,
  'f64.max': 0xa5,
  'f64.copysign': 0xa6,
  'i32.wrap_i64': 0xa7,
  'i32.trunc_f32_s': 0xa8,
  'i32.trunc_f32_u': 0xa9,
  'i32.trunc_f64_s': 0xaa,
  'i32.trunc_f64_u': 0xab,
  'i64.extend_i32_s': 0xac,
  'i64.extend_i32_u': 0xad,
  'i64.trunc_f32_s': 0xae,
  'i64.trunc_f32_u': 0xaf,
  'i64.trunc_f64_s': 0xb0,
  'i64.trunc_f64_u': 0xb1,
  'f32.convert_i32_s': 0xb2,
  'f32.convert_i32_u': 0xb3,
  'f32.convert_i64_s': 0xb4,
  'f32.convert_i64_u': 0xb5,
  'f32.demote_f64': 0xb6,
  'f64.convert_i32_s': 0xb7,
  'f64.convert_i32_u': 0xb8,
  'f64.convert_i64_s': 0xb9,
  'f64.convert_i64_u': 0xba,
  'f64.promote_f32': 0xbb,
  'i32.reinterpret_f32': 0xbc,
  'i64.reinterpret_f64': 0xbd,
  'f32.reinterpret_i32': 0xbe,
  'f64.reinterpret_i64': 0xbf,
  'i32.extend8_s': 0xc0,
  'i32.extend16_s': 0xc1,
  'i64.extend8_s': 0xc2,
  'i64.extend16_s': 0xc3,
  'i64.extend32_s': 0xc4,
};

/** 0xFC-prefixed: saturating truncation. */
const fc: Record<string, number> = {
  'i32.trunc_sat_f32_s': 0,
  'i32.trunc_sat_f32_u': 1,
  'i32.trunc_sat_f64_s': 2,
  'i32.trunc_sat_f64_u': 3,
  'i64.trunc_sat_f32_s': 4,
  'i64.trunc_sat_f32_u': 5,
  'i64.trunc_sat_f64_s': 6,
  'i64.trunc_sat_f64_u': 7,
};

/** 0xFD-prefixed SIMD ops without immediates (loads, stores, lanes and const are separate). */
const simdNames = `
35 i8x16.eq i8x16.ne i8x16.lt_s i8x16.lt_u i8x16.gt_s i8x16.gt_u i8x16.le_s i8x16.le_u i8x16.ge_s i8x16.ge_u
45 i16x8.eq i16x8.ne i16x8.lt_s i16x8.lt_u i16x8.gt_s i16x8.gt_u i16x8.le_s i16x8.le_u i16x8.ge_s i16x8.ge_u
55 i32x4.eq i32x4.ne i32x4.lt_s i32x4.lt_u i32x4.gt_s i32x4.gt_u i32x4.le_s i32x4.le_u i32x4.ge_s i32x4.ge_u
65 f32x4.eq f32x4.ne f32x4.lt f32x4.gt f32x4.le f32x4.ge
71 f64x2.eq f64x2.ne f64x2.lt f64x2.gt f64x2.le f64x2.ge
77 v128.not v128.and v128.andnot v128.or v128.xor v128.bitselect v128.any_true
94 f32x4.demote_f64x2_zero f64x2.promote_low_f32x4
96 i8x16.abs i8x16.neg i8x16.popcnt i8x16.all_true i8x16.bitmask i8x16.narrow_i16x8_s i8x16.narrow_i16x8_u
103 f32x4.ceil f32x4.floor f32x4.trunc f32x4.nearest
107 i8x16.shl i8x16.shr_s i8x16.shr_u i8x16.add i8x16.add_sat_s i8x16.add_sat_u i8x16.sub i8x16.sub_sat_s i8x16.sub_sat_u
116 f64x2.ceil f64x2.floor
118 i8x16.min_s i8x16.min_u i8x16.max_s i8x16.max_u f64x2.trunc i8x16.avgr_u
124 i16x8.extadd_pairwise_i8x16_s i16x8.extadd_pairwise_i8x16_u i32x4.extadd_pairwise_i16x8_s i32x4.extadd_pairwise_i16x8_u
128 i16x8.abs i16x8.neg i16x8.q15mulr_sat_s i16x8.all_true i16x8.bitmask i16x8.narrow_i32x4_s i16x8.narrow_i32x4_u
135 i16x8.extend_low_i8x16_s i16x8.extend_high_i8x16_s i16x8.extend_low_i8x16_u i16x8.extend_high_i8x16_u
139 i16x8.shl i16x8.shr_s i16x8.shr_u i16x8.add i16x8.add_sat_s i16x8.add_sat_u i16x8.sub i16x8.sub_sat_s i16x8.sub_sat_u
148 f64x2.nearest i16x8.mul i16x8.min_s i16x8.min_u i16x8.max_s i16x8.max_u
155 i16x8.avgr_u i16x8.extmul_low_i8x16_s i16x8.extmul_high_i8x16_s i16x8.extmul_low_i8x16_u i16x8.extmul_high_i8x16_u
160 i32x4.abs i32x4.neg
163 i32x4.all_true i32x4.bitmask
167 i32x4.extend_low_i16x8_s i32x4.extend_high_i16x8_s i32x4.extend_low_i16x8_u i32x4.extend_high_i16x8_u
171 i32x4.shl i32x4.shr_s i32x4.shr_u i32x4.add
177 i32x4.sub
181 i32x4.mul i32x4.min_s i32x4.min_u i32x4.max_s i32x4.max_u i32x4.dot_i16x8_s
188 i32x4.extmul_low_i16x8_s i32x4.extmul_high_i16x8_s i32x4.extmul_low_i16x8_u i32x4.extmul_high_i16x8_u
192 i64x2.abs i64x2.neg
195 i64x2.all_true i64x2.bitmask
199 i64x2.extend_low_i32x4_s i64x2.extend_high_i32x4_s i64x2.extend_low_i32x4_u i64x2.extend_high_i32x4_u
203 i64x2.shl i64x2.shr_s i64x2.shr_u i64x2.add
209 i64x2.sub
213 i64x2.mul i64x2.eq i64x2.ne i64x2.lt_s i64x2.gt_s i64x2.le_s i64x2.ge_s
220 i64x2.extmul_low_i32x4_s i64x2.extmul_high_i32x4_s i64x2.extmul_low_i32x4_u i64x2.extmul_high_i32x4_u
224 f32x4.abs f32x4.neg
227 f32x4.sqrt f32x4.add f32x4.sub f32x4.mul f32x4.div f32x4.min f32x4.max f32x4.pmin f32x4.pmax
236 f64x2.abs f64x2.neg
239 f64x2.sqrt f64x2.add f64x2.sub f64x2.mul f64x2.div f64x2.min f64x2.max f64x2.pmin f64x2.pmax
248 i32x4.trunc_sat_f32x4_s i32x4.trunc_sat_f32x4_u f32x4.convert_i32x4_s f32x4.convert_i32x4_u
252 i32x4.trunc_sat_f64x2_s_zero i32x4.trunc_sat_f64x2_u_zero f64x2.convert_low_i32x4_s f64x2.convert_low_i32x4_u
256 i8x16.relaxed_swizzle i32x4.relaxed_trunc_f32x4_s i32x4.relaxed_trunc_f32x4_u i32x4.relaxed_trunc_f64x2_s_zero i32x4.relaxed_trunc_f64x2_u_zero
261 f32x4.relaxed_madd f32x4.relaxed_nmadd f64x2.relaxed_madd f64x2.relaxed_nmadd
265 i8x16.relaxed_laneselect i16x8.relaxed_laneselect i32x4.relaxed_laneselect i64x2.relaxed_laneselect
269 f32x4.relaxed_min f32x4.relaxed_max f64x2.relaxed_min f64x2.relaxed_max
14 i8x16.swizzle i8x16.splat i16x8.splat i32x4.splat i64x2.splat f32x4.splat f64x2.splat
`;

const simd: Record<string, number> = {};
for (const line of simdNames.trim().split('\n')) {
  const [start, ...names] = line.trim().split(/\s+/);
  names.forEach((n, i) => {
    simd[n] = Number(start) + i;
  });
}

/** Memory access ops (take a memarg): [prefix-or-null, opcode, natural alignment log2]. */
export const MEMORY_OPS: Record<string, readonly [number | null, number, number]> = {
  'i32.load': [null, 0x28, 2],
  'i64.load': [null, 0x29, 3],
  'f32.load': [null, 0x2a, 2],
  'f64.load': [null, 0x2b, 3],
  'i32.load8_s': [null, 0x2c, 0],
  'i32.load8_u': [null, 0x2d, 0],
  'i32.load16_s': [null, 0x2e, 1],
  'i32.load16_u': [null, 0x2f, 1],
  'i64.load8_s': [null, 0x30, 0],
  'i64.load8_u': [null, 0x31, 0],
  'i64.load16_s': [null, 0x32, 1],
  'i64.load16_u': [null, 0x33, 1],
  'i64.load32_s': [null, 0x34, 2],
  'i64.load32_u': [null, 0x35, 2],
  'i32.store': [null, 0x36, 2],
  'i64.store': [null, 0x37, 3],
  'f32.store': [null, 0x38, 2],
  'f64.store': [null, 0x39, 3],
  'i32.store8': [null, 0x3a, 0],
  'i32.store16': [null, 0x3b, 1],
  'i64.store8': [null, 0x3c, 0],
  'i64.store16': [null, 0x3d, 1],
  'i64.store32': [null, 0x3e, 2],
  'v128.load': [0xfd, 0, 4],
  'v128.load8x8_s': [0xfd, 1, 3],
  'v128.load8x8_u': [0xfd, 2, 3],
  'v128.load16x4_s': [0xfd, 3, 3],
  'v128.load16x4_u': [0xfd, 4, 3],
  'v128.load32x2_s': [0xfd, 5, 3],
  'v128.load32x2_u': [0xfd, 6, 3],
  'v128.load8_splat': [0xfd, 7, 0],
  'v128.load16_splat': [0xfd, 8, 1],
  'v128.load32_splat': [0xfd, 9, 2],
  'v128.load64_splat': [0xfd, 10, 3],
  'v128.store': [0xfd, 11, 4],
  'v128.load32_zero': [0xfd, 92, 2],
  'v128.load64_zero': [0xfd, 93, 3],
  'memory.atomic.notify': [0xfe, 0x00, 2],
  'memory.atomic.wait32': [0xfe, 0x01, 2],
  'memory.atomic.wait64': [0xfe, 0x02, 3],
  'i32.atomic.load': [0xfe, 0x10, 2],
  'i64.atomic.load': [0xfe, 0x11, 3],
  'i32.atomic.store': [0xfe, 0x17, 2],
  'i64.atomic.store': [0xfe, 0x18, 3],
  'i32.atomic.rmw.add': [0xfe, 0x1e, 2],
  'i32.atomic.rmw.sub': [0xfe, 0x25, 2],
  'i32.atomic.rmw.xchg': [0xfe, 0x41, 2],
  'i32.atomic.rmw.cmpxchg': [0xfe, 0x48, 2],
};

/** SIMD lane ops: opcode (the lane index byte follows). */
export const LANE_OPS: Record<string, number> = {
  'i8x16.extract_lane_s': 21,
  'i8x16.extract_lane_u': 22,
  'i8x16.replace_lane': 23,
  'i16x8.extract_lane_s': 24,
  'i16x8.extract_lane_u': 25,
  'i16x8.replace_lane': 26,
  'i32x4.extract_lane': 27,
  'i32x4.replace_lane': 28,
  'i64x2.extract_lane': 29,
  'i64x2.replace_lane': 30,
  'f32x4.extract_lane': 31,
  'f32x4.replace_lane': 32,
  'f64x2.extract_lane': 33,
  'f64x2.replace_lane': 34,
};

/** Byte encodings of every immediate-free op, by name. */
export const SIMPLE_OPS: ReadonlyMap<string, readonly number[]> = (() => {
  const m = new Map<string, readonly number[]>();
  for (const [k, v] of Object.entries(plain)) m.set(k, [v]);
  for (const [k, v] of Object.entries(fc)) m.set(k, [0xfc, v]);
  for (const [k, v] of Object.entries(simd))
    m.set(k, v < 128 ? [0xfd, v] : [0xfd, (v & 0x7f) | 0x80, v >> 7]);
  m.set('atomic.fence', [0xfe, 0x03, 0x00]);
  m.set('memory.size', [0x3f, 0x00]);
  m.set('memory.grow', [0x40, 0x00]);
  m.set('memory.copy', [0xfc, 10, 0x00, 0x00]);
  m.set('memory.fill', [0xfc, 11, 0x00]);
  return m;
})();

/** Names of relaxed-SIMD ops (a module using one fails validation where relaxed SIMD is off). */
export function isRelaxedOp(name: string): boolean {
  return name.includes('.relaxed_');
}
