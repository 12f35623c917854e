/**
 * The convolution parameter block: one problem described as i32 slots in wasm memory (byte
 * addresses, byte strides, sizes), so the chunk entry points `fn(chunk, thread, block)` run the same
 * on the calling thread and on every worker. Sizes are in the convolution's own terms (the
 * Deconvolution kernels describe the convolution they are the transpose of): C input channels, F
 * output channels, G groups of CG = C/G inputs and MG = F/G outputs, input D×H×W (padded
 * DP×HP×WP), output OD×OH×OW, K = CG·KD·KH·KW rows of the (implicit) column matrix, NS = OD·OH·OW
 * columns per image.
 */
import { SlotCounter, windowSlots } from './slots.js';

const slots = new SlotCounter();
const slot = slots.slot;

export const S = {
  N: slot(),
  G: slot(),
  CG: slot(),
  MG: slot(),
  C: slot(),
  F: slot(),
  /** D, H, W, OD, OH, OW, KD, KH, KW, SD, SH, SW. */
  ...windowSlots(slot),
  DD: slot(),
  DH: slot(),
  DW: slot(),
  PD: slot(),
  PH: slot(),
  PW: slot(),
  DP: slot(),
  HP: slot(),
  WP: slot(),
  /** Elements of one padded plane (DP·HP·WP). */
  PLANE: slot(),
  /** HP·WP, SD·HP·WP and SH·WP: element strides of the padded planes. */
  HPWP: slot(),
  SDHW: slot(),
  SHW: slot(),
  /** Element offset steps of one kernel tap: DD·HP·WP, DH·WP. */
  DDHW: slot(),
  DHW: slot(),
  /** KH·KW, KD·KH·KW, CG·KS, OH·OW, OD·OH·OW, D·H·W. */
  KHW: slot(),
  KS: slot(),
  K: slot(),
  OHW: slot(),
  NS: slot(),
  IS: slot(),
  /** Unpadded input (padCopy source); padded input (== X without padding). */
  X: slot(),
  XP: slot(),
  /** Weights (F, CG, kernel...). */
  WT: slot(),
  /** Forward output (N, F, NS). */
  Y: slot(),
  /** Forward bias (F,) and whether there is one. */
  BIAS: slot(),
  HAS_BIAS: slot(),
  /** 1: add into the forward output (req add). */
  ACC_Y: slot(),
  /** Output gradient (N, F, NS) for the backward phases. */
  DY: slot(),
  /** Data gradient (N, C, D·H·W), its req (1: add) and an optional (C,) bias (Deconvolution). */
  DX: slot(),
  ACC_DX: slot(),
  XBIAS: slot(),
  HAS_XBIAS: slot(),
  /** Columns per block (a multiple of nr) and blocks per image. */
  NCOLS: slot(),
  JB: slot(),
  /** Column-matrix rows per block of the weight gradient. */
  KRB: slot(),
  /** Contraction block and row block of the micro-kernel loops. */
  KC: slot(),
  MC: slot(),
  /** Packed weights of the forward pass: G × MPAD × K. */
  PACKED_A: slot(),
  MPAD: slot(),
  /** Per-thread scratch: base, bytes per thread, and byte offsets of its parts. */
  SCRATCH: slot(),
  SCRATCH_BYTES: slot(),
  OFF_A: slot(),
  OFF_B: slot(),
  OFF_COL: slot(),
  OFF_TMP: slot(),
  OFF_DXP: slot(),
  /** Run table of im2col/col2im (12 bytes per piece). */
  OFF_TBL: slot(),
  /** Data-gradient chunks: channels per block and blocks per group. */
  CB: slot(),
  NCB: slot(),
  /** Weight-gradient accumulators: base, bytes per thread, threads, elements, per reduce chunk. */
  ACC: slot(),
  ACC_STRIDE: slot(),
  THREADS: slot(),
  COUNT: slot(),
  RCHUNK: slot(),
  /** Weight gradient (F, CG, kernel...) and its req (1: add). */
  DWT: slot(),
  ACC_DW: slot(),
  /** Bias gradient: source (N, ROWS, LEN), output (ROWS,), req, rows per chunk. */
  BG_SRC: slot(),
  BG_ROWS: slot(),
  BG_LEN: slot(),
  BG_OUT: slot(),
  BG_ACC: slot(),
  BG_PER: slot(),
  /** Planes per padCopy chunk and planes in all. */
  PPC: slot(),
  PLANES: slot(),
} as const;

export const PARAM_BYTES = slots.bytes;
