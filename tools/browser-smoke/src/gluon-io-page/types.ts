/**
 * What the gluon/io page reports back to gluon-io.test.ts as JSON on `window.__results`, and the
 * images it decodes (shared by both sides: the page embeds the fixture files as bytes and builds
 * the generated PNGs, the test reads the same files from disk, builds the same PNGs and decodes
 * them with sharp). Plain data only: it crosses from the page to Node through playwright's
 * serialization.
 */

import { GENERATED_PNGS, type GeneratedPng } from './alpha-pngs.js';

/** Fixtures of packages/io/src/__fixtures__/images decoded on the page (PNG and JPEG kinds). */
export const IMAGE_FIXTURES = [
  'rgb-8x6.png',
  'gray-7x5.png',
  'palette-6x5.png',
  'rgba-6x4.png',
  'graya-5x3.png',
  'rgb16-4x3.png',
  'rgb-16x12.jpg',
  'gray-9x7.jpg',
  'progressive-20x14.jpg',
] as const;
export type ImageFixture = (typeof IMAGE_FIXTURES)[number];

/** Every image the page decodes: the fixtures, then the PNGs with alpha made by alpha-pngs.ts. */
export const PAGE_IMAGES = [...IMAGE_FIXTURES, ...GENERATED_PNGS] as const;
export type PageImage = ImageFixture | GeneratedPng;

export interface PageError {
  readonly message: string;
  readonly stack?: string;
}

/** `image.imdecode(rt, bytes, { flag })` of one image on the page. */
export interface ImageResult {
  readonly file: PageImage;
  readonly flag: 0 | 1;
  readonly shape?: readonly number[];
  readonly dtype?: string;
  /** The decoded pixels, HWC, as numbers. */
  readonly pixels?: readonly number[];
  readonly error?: PageError;
}

/** One NDArray of a batch, read back. */
export interface FlatArray {
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly values: readonly number[];
}

/** Two epochs of a DataLoader over the page's ArrayDataset. */
export interface LoaderResult {
  readonly numWorkers: number;
  /** epochs[e][b] = [data, label] of batch b. */
  readonly epochs?: readonly (readonly (readonly FlatArray[])[])[];
  /** `loader.activeWorkers` while the first batch was in hand, after the epochs, after dispose(). */
  readonly activeWorkers?: {
    readonly during: number;
    readonly afterEpochs: number;
    readonly afterDispose: number;
  };
  /** NDArrays alive after the run minus before it (0: every batch was disposed). */
  readonly leakedArrays?: number;
  readonly ms?: number;
  readonly error?: PageError;
}

/**
 * The platforms a `BrowserDecoder` is given on the page: the page's own ('auto'), one without
 * WebCodecs' ImageDecoder ('noImageDecoder': WebGL2 must take PNGs with alpha), and one without
 * ImageDecoder and whose OffscreenCanvas has no WebGL2 ('noWebGL': only the 2d canvas is left).
 */
export const DECODE_SETUPS = ['auto', 'noImageDecoder', 'noWebGL'] as const;
export type DecodeSetup = (typeof DECODE_SETUPS)[number];

/** One PNG through `BrowserDecoder.decode` on one setup: the raw pixels and the path taken. */
export interface PathResult {
  readonly file: PageImage;
  readonly setup: DecodeSetup;
  readonly path?: string;
  readonly width?: number;
  readonly height?: number;
  readonly channels?: number;
  readonly pixels?: readonly number[];
  readonly error?: PageError;
  /** Decoded by the same decoder after its `dispose()`. */
  readonly afterDispose?: boolean;
}

/** What `image.imdecode` says for broken bytes (a truncated PNG with alpha, one without). */
export interface BadImageResult {
  readonly what: string;
  /** The error's class name and message; absent if it decoded (it must not). */
  readonly error?: { readonly name: string; readonly message: string };
}

export interface GluonIoResults {
  readonly done: boolean;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  readonly images: readonly ImageResult[];
  readonly paths: readonly PathResult[];
  readonly badImages: readonly BadImageResult[];
  readonly loaders: readonly LoaderResult[];
  /** An error outside the checks (a package that does not load, no runtime). */
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
}
