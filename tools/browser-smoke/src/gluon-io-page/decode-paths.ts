/**
 * Each browser decoding path of @mx/io on its own, on the page: every PNG goes through a
 * `BrowserDecoder` given the page's platform, one without WebCodecs' ImageDecoder, and one without
 * ImageDecoder and WebGL2 (see DECODE_SETUPS), so the test can hold the path each one takes, and its
 * raw RGBA, to sharp's pixels — the WebGL2 fallback included, which the page's own platform never
 * reaches in Chromium. Imported from @mx/io's source by path: the decoder class is internal.
 */
import {
  type BrowserDecodePlatform,
  BrowserDecoder,
} from '../../../../packages/io/src/image/decode-browser.js';
import { pageError } from './checks.js';
import { pageImageBytes } from './fixtures.js';
import { DECODE_SETUPS, type DecodeSetup, PAGE_IMAGES, type PathResult } from './types.js';

type CanvasClass = NonNullable<BrowserDecodePlatform['OffscreenCanvas']>;

/** The platform of one setup, made from the page's own APIs. */
function platformFor(setup: DecodeSetup): BrowserDecodePlatform {
  const page = globalThis as unknown as BrowserDecodePlatform;
  if (setup === 'auto') return page;
  const createImageBitmap = page.createImageBitmap?.bind(globalThis);
  const Real = page.OffscreenCanvas as CanvasClass;
  if (setup === 'noImageDecoder') return { createImageBitmap, OffscreenCanvas: Real };
  /** An OffscreenCanvas whose getContext('webgl2') gives null, as where WebGL is off. */
  class NoWebGL {
    readonly #canvas: InstanceType<CanvasClass>;
    constructor(width: number, height: number) {
      this.#canvas = new Real(width, height);
    }
    getContext(kind: string): unknown {
      return kind === '2d' ? this.#canvas.getContext('2d') : null;
    }
  }
  return { createImageBitmap, OffscreenCanvas: NoWebGL as unknown as CanvasClass };
}

async function decodeOne(
  decoder: BrowserDecoder,
  file: PathResult['file'],
  bytes: Uint8Array,
  setup: DecodeSetup,
): Promise<PathResult> {
  try {
    const r = await decoder.decode(bytes, 'png');
    const { path, width, height, channels } = r;
    return { file, setup, path, width, height, channels, pixels: Array.from(r.data) };
  } catch (e) {
    return { file, setup, error: pageError(e) };
  }
}

/**
 * Every PNG through each setup's decoder (one decoder per setup, so WebGL2 reuses its context),
 * then, after `dispose()`, the first image again (a disposed decoder makes a new context).
 */
export async function decodePaths(): Promise<PathResult[]> {
  const bytes = pageImageBytes();
  const pngs = PAGE_IMAGES.filter((f) => f.endsWith('.png'));
  const out: PathResult[] = [];
  for (const setup of DECODE_SETUPS) {
    const decoder = new BrowserDecoder('imdecode', platformFor(setup));
    for (const file of pngs) out.push(await decodeOne(decoder, file, bytes[file], setup));
    decoder.dispose();
    const again = await decodeOne(decoder, 'rgba-6x4.png', bytes['rgba-6x4.png'], setup);
    out.push({ ...again, afterDispose: true });
    decoder.dispose();
  }
  return out;
}
