/**
 * What the gluon/io page reports back to gluon-io.test.ts as JSON on `window.__results`, and the
 * image fixtures it decodes (shared by both sides: the page embeds these files as bytes, the test
 * reads the same files from disk and decodes them with sharp). Plain data only: it crosses from the
 * page to Node through playwright's serialization.
 */

/** Fixtures of packages/io/src/__fixtures__/images decoded on the page (PNG and JPEG kinds). */
export const IMAGE_FIXTURES = [
  'rgb-8x6.png',
  'gray-7x5.png',
  'palette-6x5.png',
  'rgba-6x4.png',
  'rgb-16x12.jpg',
  'gray-9x7.jpg',
  'progressive-20x14.jpg',
] as const;
export type ImageFixture = (typeof IMAGE_FIXTURES)[number];

export interface PageError {
  readonly message: string;
  readonly stack?: string;
}

/** `image.imdecode(rt, bytes, { flag })` of one fixture on the page. */
export interface ImageResult {
  readonly file: ImageFixture;
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

export interface GluonIoResults {
  readonly done: boolean;
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  readonly images: readonly ImageResult[];
  readonly loaders: readonly LoaderResult[];
  /** An error outside the checks (a package that does not load, no runtime). */
  readonly fatal?: { readonly stage: string; readonly message: string; readonly stack?: string };
}
