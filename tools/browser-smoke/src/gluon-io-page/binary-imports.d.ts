/** The page imports image files as bytes (esbuild's `binary` loader, bundle.ts). */
declare module '*.png' {
  const bytes: Uint8Array;
  export default bytes;
}
declare module '*.jpg' {
  const bytes: Uint8Array;
  export default bytes;
}
