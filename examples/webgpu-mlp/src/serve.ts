/**
 * `pnpm --filter @mx/example-webgpu-mlp serve`: bundle the page once and serve it until Ctrl-C,
 * printing the URLs to open (PORT=… picks the port; default 8080). WebGPU needs a secure context,
 * which http://127.0.0.1 is; in Chrome without a GPU, start it with --enable-unsafe-webgpu.
 */
import { bundlePage } from './bundle.js';
import { startServer } from './server.js';

const port = Number(process.env.PORT ?? 8080);
const bundle = await bundlePage();
const server = await startServer(bundle, Number.isInteger(port) ? port : 8080);
console.log(`bundled app.js (${(bundle.js.length / 1024).toFixed(0)} KiB) in ${bundle.ms.toFixed(0)} ms`);
console.log(`open ${server.origin}/            (trains on gpu(0), WebGPU)`);
console.log(`  or ${server.origin}/?device=cpu (trains on cpu(0), cpu-wasm)`);
console.log('Ctrl-C stops the server.');
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
