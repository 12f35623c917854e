/**
 * A small WebAssembly assembler: cpu-wasm generates its kernels at run time from TypeScript (per
 * expression, dtype and machine), so it needs to write modules without a toolchain. This is the
 * whole binary encoder: a function builder that appends opcodes by their text-format names (table
 * in opcodes.ts) with typed immediates, structured control flow, locals; and a module builder with
 * types, imports (one shared memory, host functions), functions and exports.
 *
 * It does no validation of its own: `WebAssembly.Module` validates every module we build, and a
 * kernel generator's tests compile every variant they emit.
 */
import { isRelaxedOp, LANE_OPS, MEMORY_OPS, SIMPLE_OPS } from './opcodes.js';

/** Value types. */
export const I32 = 0x7f;
export const I64 = 0x7e;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;
export type ValType = typeof I32 | typeof I64 | typeof F32 | typeof F64 | typeof V128;
/** Block type of a block that yields nothing. */
export const VOID = 0x40;
export type BlockType = ValType | typeof VOID;

class ByteWriter {
  bytes: number[] = [];
  u8(b: number): this {
    this.bytes.push(b & 0xff);
    return this;
  }
  raw(bs: readonly number[] | Uint8Array): this {
    for (const b of bs) this.bytes.push(b);
    return this;
  }
  uleb(n: number): this {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`uleb: ${n}`);
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      this.bytes.push(b);
    } while (n > 0);
    return this;
  }
  sleb(n: number | bigint): this {
    let v = BigInt(n);
    for (;;) {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
      this.bytes.push(done ? b : b | 0x80);
      if (done) return this;
    }
  }
  name(s: string): this {
    const enc = new TextEncoder().encode(s);
    return this.uleb(enc.length).raw(enc);
  }
  vec(items: readonly (readonly number[])[]): this {
    this.uleb(items.length);
    for (const it of items) this.raw(it);
    return this;
  }
}

/** Builds one function body. Methods return `this` so code reads as a sequence of instructions. */
export class FunctionBuilder {
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
  readonly #locals: ValType[] = [];
  readonly #code = new ByteWriter();
  #usesRelaxed = false;

  constructor(params: readonly ValType[], results: readonly ValType[] = []) {
    this.params = params;
    this.results = results;
  }

  /** True when the body uses a relaxed-SIMD op. */
  get usesRelaxed(): boolean {
    return this.#usesRelaxed;
  }

  /** Declare a local; returns its index (parameters come first). */
  local(type: ValType): number {
    this.#locals.push(type);
    return this.params.length + this.#locals.length - 1;
  }

  /** Immediate-free ops by name, in order: `f.op('local.get', ...)` is not allowed; use the helpers. */
  op(...names: string[]): this {
    for (const name of names) {
      const enc = SIMPLE_OPS.get(name);
      if (!enc) throw new Error(`unknown wasm op '${name}'`);
      if (isRelaxedOp(name)) this.#usesRelaxed = true;
      this.#code.raw(enc);
    }
    return this;
  }

  /** A load/store/atomic with a memarg; `align` defaults to the natural alignment (log2). */
  mem(name: string, offset = 0, align?: number): this {
    const m = MEMORY_OPS[name];
    if (!m) throw new Error(`unknown wasm memory op '${name}'`);
    const [prefix, code, natural] = m;
    if (prefix !== null) this.#code.u8(prefix);
    if (prefix === null) this.#code.u8(code);
    else this.#code.uleb(code);
    this.#code.uleb(align ?? natural).uleb(offset);
    return this;
  }

  /** SIMD extract/replace lane. */
  lane(name: string, lane: number): this {
    const code = LANE_OPS[name];
    if (code === undefined) throw new Error(`unknown wasm lane op '${name}'`);
    this.#code.u8(0xfd).uleb(code).u8(lane);
    return this;
  }

  /** i8x16.shuffle with 16 lane indices. */
  shuffle(lanes: readonly number[]): this {
    if (lanes.length !== 16) throw new Error('i8x16.shuffle needs 16 lane indices');
    this.#code.u8(0xfd).uleb(13).raw(lanes);
    return this;
  }

  i32Const(n: number): this {
    this.#code.u8(0x41).sleb(n | 0);
    return this;
  }
  i64Const(n: number | bigint): this {
    this.#code.u8(0x42).sleb(BigInt.asIntN(64, BigInt(n)));
    return this;
  }
  f32Const(x: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, x, true);
    this.#code.u8(0x43).raw(b);
    return this;
  }
  f64Const(x: number): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, x, true);
    this.#code.u8(0x44).raw(b);
    return this;
  }
  /** v128.const from 16 raw bytes. */
  v128Const(bytes: Uint8Array): this {
    this.#code.u8(0xfd).uleb(12).raw(bytes);
    return this;
  }
  f32x4Const(a: number, b = a, c = a, d = a): this {
    return this.v128Const(new Uint8Array(new Float32Array([a, b, c, d]).buffer));
  }
  f64x2Const(a: number, b = a): this {
    return this.v128Const(new Uint8Array(new Float64Array([a, b]).buffer));
  }
  i32x4Const(a: number, b = a, c = a, d = a): this {
    return this.v128Const(new Uint8Array(new Int32Array([a, b, c, d]).buffer));
  }

  get(i: number): this {
    this.#code.u8(0x20).uleb(i);
    return this;
  }
  set(i: number): this {
    this.#code.u8(0x21).uleb(i);
    return this;
  }
  tee(i: number): this {
    this.#code.u8(0x22).uleb(i);
    return this;
  }
  globalGet(i: number): this {
    this.#code.u8(0x23).uleb(i);
    return this;
  }
  call(funcIndex: number): this {
    this.#code.u8(0x10).uleb(funcIndex);
    return this;
  }

  block(type: BlockType = VOID): this {
    this.#code.u8(0x02).u8(type);
    return this;
  }
  loop(type: BlockType = VOID): this {
    this.#code.u8(0x03).u8(type);
    return this;
  }
  if(type: BlockType = VOID): this {
    this.#code.u8(0x04).u8(type);
    return this;
  }
  else(): this {
    return this.op('else');
  }
  end(): this {
    return this.op('end');
  }
  br(depth: number): this {
    this.#code.u8(0x0c).uleb(depth);
    return this;
  }
  brIf(depth: number): this {
    this.#code.u8(0x0d).uleb(depth);
    return this;
  }

  /** @internal The encoded body (locals + code + end). */
  encodeBody(): number[] {
    const w = new ByteWriter();
    // Run-length encode consecutive locals of one type.
    const groups: [number, ValType][] = [];
    for (const t of this.#locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    w.uleb(groups.length);
    for (const [n, t] of groups) w.uleb(n).u8(t);
    w.raw(this.#code.bytes).u8(0x0b);
    const out = new ByteWriter();
    out.uleb(w.bytes.length).raw(w.bytes);
    return out.bytes;
  }
}

export interface MemoryImport {
  readonly module?: string;
  readonly name?: string;
  /** Initial pages (64 KiB). */
  readonly min: number;
  readonly max?: number;
  readonly shared?: boolean;
}

interface FuncImport {
  readonly module: string;
  readonly name: string;
  readonly type: number;
}

/** Builds a module: a memory import, host function imports, functions, exports. */
export class ModuleBuilder {
  readonly #types: number[][] = [];
  readonly #typeKeys = new Map<string, number>();
  readonly #funcImports: FuncImport[] = [];
  readonly #funcs: { type: number; body: FunctionBuilder }[] = [];
  readonly #exports: { name: string; index: number }[] = [];
  #memory: MemoryImport | undefined;

  #typeIndex(params: readonly ValType[], results: readonly ValType[]): number {
    const key = `${params.join(',')}->${results.join(',')}`;
    let i = this.#typeKeys.get(key);
    if (i === undefined) {
      i = this.#types.length;
      const w = new ByteWriter().u8(0x60).uleb(params.length).raw(params).uleb(results.length).raw(results);
      this.#types.push(w.bytes);
      this.#typeKeys.set(key, i);
    }
    return i;
  }

  /** Import the memory every kernel works on (default `env.memory`). */
  importMemory(m: MemoryImport): this {
    this.#memory = m;
    return this;
  }

  /** Import a host function; returns its function index. Call before adding functions. */
  importFunction(
    module: string,
    name: string,
    params: readonly ValType[],
    results: readonly ValType[] = [],
  ): number {
    if (this.#funcs.length > 0) throw new Error('import functions before defining any');
    this.#funcImports.push({ module, name, type: this.#typeIndex(params, results) });
    return this.#funcImports.length - 1;
  }

  /** Add a function; exported under `exportName` when given. Returns its function index. */
  addFunction(body: FunctionBuilder, exportName?: string): number {
    const index = this.#funcImports.length + this.#funcs.length;
    this.#funcs.push({ type: this.#typeIndex(body.params, body.results), body });
    if (exportName !== undefined) this.#exports.push({ name: exportName, index });
    return index;
  }

  /** `addFunction` that returns the builder, for one-expression module definitions. */
  addFunctionChain(body: FunctionBuilder, exportName?: string): this {
    this.addFunction(body, exportName);
    return this;
  }

  /** True when some function uses relaxed SIMD. */
  get usesRelaxed(): boolean {
    return this.#funcs.some((f) => f.body.usesRelaxed);
  }

  toBytes(): Uint8Array {
    const out = new ByteWriter().raw([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    const section = (id: number, content: ByteWriter) =>
      out.u8(id).uleb(content.bytes.length).raw(content.bytes);
    section(1, new ByteWriter().vec(this.#types));
    const imports: number[][] = [];
    if (this.#memory) {
      const m = this.#memory;
      const w = new ByteWriter()
        .name(m.module ?? 'env')
        .name(m.name ?? 'memory')
        .u8(0x02);
      const flags = (m.max !== undefined ? 1 : 0) | (m.shared ? 2 : 0);
      w.u8(flags).uleb(m.min);
      if (m.max !== undefined) w.uleb(m.max);
      imports.push(w.bytes);
    }
    for (const f of this.#funcImports) {
      imports.push(new ByteWriter().name(f.module).name(f.name).u8(0x00).uleb(f.type).bytes);
    }
    if (imports.length) section(2, new ByteWriter().vec(imports));
    section(3, new ByteWriter().vec(this.#funcs.map((f) => new ByteWriter().uleb(f.type).bytes)));
    section(
      7,
      new ByteWriter().vec(
        this.#exports.map((e) => new ByteWriter().name(e.name).u8(0x00).uleb(e.index).bytes),
      ),
    );
    section(10, new ByteWriter().vec(this.#funcs.map((f) => f.body.encodeBody())));
    return new Uint8Array(out.bytes);
  }
}
