export { default } from '../../vitest.webgpu.js';
