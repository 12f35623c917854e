/** gluon.data.vision: image datasets and transforms. */
export { CIFAR10, type CIFAR10Options, CIFAR100, type CIFAR100Options } from './cifar.js';
export { FashionMNIST, MNIST, type MNISTOptions } from './datasets.js';
export {
  type ImageDatasetOptions,
  ImageFolderDataset,
  type ImageLabel,
  ImageListDataset,
  type ImageListEntry,
  ImageRecordDataset,
} from './image-datasets.js';
export * as transforms from './transforms.js';
