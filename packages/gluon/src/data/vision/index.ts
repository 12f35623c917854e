/** gluon.data.vision: image datasets and transforms. */
export { FashionMNIST, MNIST, type MNISTOptions } from './datasets.js';
export * as transforms from './transforms.js';
