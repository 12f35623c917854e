/**
 * The example's static server on 127.0.0.1: `/` is the page (page/index.html), `/app.js` the
 * bundle, `/data/<file>.gz` the embedded MNIST subset straight from packages/io/data/mnist (the
 * page decompresses it). Every response is cross-origin isolated (COOP/COEP), so cpu-wasm may use
 * a shared memory and workers when the page runs on cpu(0). Nothing else is served.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { PageBundle } from './bundle.js';

const MNIST_DIR = fileURLToPath(new URL('../../../packages/io/data/mnist/', import.meta.url));
const MNIST_FILES = new Set([
  'train-images-idx3-ubyte.gz',
  'train-labels-idx1-ubyte.gz',
  'val-images-idx3-ubyte.gz',
  'val-labels-idx1-ubyte.gz',
]);
const INDEX_HTML = fileURLToPath(new URL('./page/index.html', import.meta.url));

const HEADERS = {
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface PageServer {
  /** e.g. http://127.0.0.1:8080 */
  readonly origin: string;
  close(): Promise<void>;
}

/** Serve `bundle` on `port` (0: any free port). */
export async function startServer(bundle: PageBundle, port = 0): Promise<PageServer> {
  const html = readFileSync(INDEX_HTML, 'utf8');
  const data = new Map([...MNIST_FILES].map((f) => [f, readFileSync(`${MNIST_DIR}${f}`)]));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const send = (type: string, body: string | Uint8Array) =>
      res.writeHead(200, { ...HEADERS, 'Content-Type': type }).end(body);
    if (req.method !== 'GET' && req.method !== 'HEAD') res.writeHead(405).end();
    else if (path === '/' || path === '/index.html') send('text/html; charset=utf-8', html);
    else if (path === '/app.js')
      send('text/javascript; charset=utf-8', `${bundle.js}\n//# sourceMappingURL=app.js.map\n`);
    else if (path === '/app.js.map') send('application/json', bundle.map);
    else if (path.startsWith('/data/') && data.has(path.slice(6)))
      send('application/octet-stream', data.get(path.slice(6)) as Uint8Array);
    else if (path === '/favicon.ico') res.writeHead(204).end();
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
