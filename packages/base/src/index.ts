/**
 * @mx/base: the vocabulary every other `@mx` package shares: devices (Context), element types
 * (DType, with MXNet's flags), shapes (NumPy semantics), MXNetError and typed MXNET_* settings.
 * It has no dependencies and no state beyond interned Context values.
 */
export {
  Context,
  cpu,
  cpuPinned,
  cpuShared,
  DEVICE_TYPE_IDS,
  type DeviceType,
  gpu,
  MAX_DEVICE_ID,
} from './context.js';
export {
  ALL_DTYPES,
  DType,
  type DTypeInfo,
  type DTypeKind,
  type DTypeName,
  dtype,
  dtypeFromFlag,
  isFloatDType,
  isIntegerDType,
  type StorageArray,
  type StorageArrayConstructor,
} from './dtype.js';
export {
  type PromotionOperand,
  promoteTypes,
  type ResultTypeOptions,
  resultType,
  type WeakScalar,
  type WeakScalarKind,
} from './dtype-promotion.js';
export {
  type BoolSpec,
  ENV_SETTINGS,
  type EngineTypeName,
  type EnumSpec,
  Env,
  type IntSpec,
  POOL_DEVICES,
  type PoolDevice,
  type PoolType,
  type SettingName,
  type SettingSpec,
  type SettingValue,
} from './env.js';
export { isMXNetError, MXNetError, type MXNetErrorContext } from './error.js';
export { fromBFloat16Bits, fromHalfBits, toBFloat16Bits, toHalfBits } from './half.js';
export { maybeNodeBuiltin, nodeBuiltin } from './node-builtin.js';
export {
  broadcastShapes,
  checkShape,
  fromLegacyShape,
  isShapeKnown,
  normalizeAxis,
  parseShape,
  type Shape,
  shapeSize,
  shapesEqual,
  shapeToString,
  stridesOf,
  toLegacyShape,
  UNKNOWN_DIM,
} from './shape.js';
