/**
 * np reduce ops cpu-wasm runs and webgpu does not, each with the reason (the coverage test requires
 * every cpu-wasm op to have a webgpu kernel or an entry here).
 */
export const LEFT_OUT: Readonly<Record<string, string>> = {};
