/**
 * The host's WebAssembly object types, named without the `WebAssembly` namespace in the published
 * typings. TypeScript declares that namespace only in lib.dom and lib.webworker, so a declaration
 * file that says `WebAssembly.Memory` does not compile in a Node program with `lib: ["es2022"]` and
 * `skipLibCheck: false`. These aliases read the types off `globalThis` instead: the real
 * `WebAssembly.Memory` / `Module` / `Exports` wherever the program declares them (this package's
 * own build, browser and worker programs), `unknown` where it does not.
 */
type Host = typeof globalThis;

/** `WebAssembly.Memory` where the program declares it, otherwise `unknown`. */
export type WasmMemoryObject = Host extends { WebAssembly: { Memory: { prototype: infer M } } } ? M : unknown;

/** `WebAssembly.Module` where the program declares it, otherwise `unknown`. */
export type WasmModuleObject = Host extends { WebAssembly: { Module: { prototype: infer M } } } ? M : unknown;

/** `WebAssembly.Exports` where the program declares it, otherwise `unknown`. */
export type WasmExportsObject = Host extends {
  WebAssembly: { Instance: { prototype: { exports: infer E } } };
}
  ? E
  : unknown;
