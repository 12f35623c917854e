/**
 * From the addon's errors to MXNetErrors. The addon throws plain Errors carrying the CUDA call, its
 * numeric code and the code's name; here they get the op, the device and what to do. "Sticky" CUDA
 * errors (an illegal address, a failed launch, a hardware exception) leave the context unusable:
 * they mark the device lost, every later op on it fails at once with the cause, and cpu(0) and the
 * other devices keep working — MXNet's behaviour, without aborting the process.
 */
import { MXNetError } from '@mx/base';

/** The fields addon errors carry. */
export interface AddonError extends Error {
  readonly call?: string;
  readonly code?: number;
  readonly codeName?: string;
}

/** CUDA_ERROR_* codes after which the context cannot be used again. */
const STICKY = new Set([
  700, // ILLEGAL_ADDRESS
  702, // LAUNCH_TIMEOUT
  714, // HARDWARE_STACK_ERROR
  715, // ILLEGAL_INSTRUCTION
  716, // MISALIGNED_ADDRESS
  717, // INVALID_ADDRESS_SPACE
  718, // INVALID_PC
  719, // LAUNCH_FAILED
  999, // UNKNOWN
]);

export function isAddonError(e: unknown): e is AddonError {
  return e instanceof Error && typeof (e as AddonError).codeName === 'string';
}

/** True for a CUDA error after which the device's context is unusable. */
export function isSticky(e: unknown): boolean {
  return isAddonError(e) && e.code !== undefined && STICKY.has(e.code);
}

function hintFor(e: AddonError): string {
  switch (e.codeName) {
    case 'CUDA_ERROR_NO_DEVICE':
      return 'no NVIDIA GPU is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES); use cpu(0)';
    case 'CUDA_ERROR_INSUFFICIENT_DRIVER':
    case 'CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE':
      return 'update the NVIDIA driver to one supporting CUDA 12 or 13';
    case 'CUDA_ERROR_STUB_LIBRARY':
      return 'the libcuda found is the toolkit stub; put the real driver library first (MX_CUDA_LIB_DIR)';
    case 'CUDA_ERROR_OUT_OF_MEMORY':
      return 'free arrays (dispose, scopes), use a smaller batch, or another device';
    case 'CUDA_ERROR_INVALID_PTX':
    case 'CUDA_ERROR_NO_BINARY_FOR_GPU':
    case 'CUDA_ERROR_UNSUPPORTED_PTX_VERSION':
      return "the kernel was built for another architecture or a newer CUDA than the driver's; update the driver";
    default:
      return isSticky(e)
        ? 'the device is unusable until the process restarts; arrays on cpu(0) and other devices still work'
        : 'see the CUDA error name above';
  }
}

/** An MXNetError for a failure of the addon (or pass through an MXNetError). */
export function cudaError(e: unknown, op: string, device: string): MXNetError {
  if (e instanceof MXNetError) return e;
  if (isAddonError(e)) {
    return new MXNetError(e.message, { op, device, hint: hintFor(e), cause: e });
  }
  return new MXNetError(e instanceof Error ? e.message : String(e), { op, device, cause: e });
}
