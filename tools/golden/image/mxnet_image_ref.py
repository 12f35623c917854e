"""A NumPy reference of MXNet's python/mxnet/image/image.py (2.0), written for the golden data of
@mx/io's `image` namespace. Not a copy of MXNet: its formulas, restated on NumPy arrays.

- Randomness comes from the same places as in MXNet: Python's `random` module (crops, flips,
  jitter factors, RandomOrderAug's shuffle, interp 10) and NumPy's global legacy generator
  (LightingAug). Seeding both gives MXNet's draws.
- NDArray arithmetic is float32, as MXNet's: every elementwise step here is a float32 NumPy op
  (a Python float operand becomes float32 first, as MXNet's scalar ops cast it to the array's
  dtype). Two reductions are done in float64 and rounded once, as @mx does on purpose: the total
  of ContrastJitterAug, and the 3x3 products of HueJitterAug / RandomGrayAug (MXNet: float32
  sum / BLAS sgemm), so tests allow a last-bit difference there.
- `imresize` stands for OpenCV's cv::resize (not available here): the separable tap tables of
  @mx's resize (OpenCV's geometry and kernels, float64 arithmetic, one rounding at the end). The
  golden scripts check it against PyTorch where PyTorch resamples the same way.
"""
import json
import math
import random

import numpy as np

# ---------------------------------------------------------------- resize (OpenCV's codes)


def _fixed_taps(dsize, ssize, k, fill):
    taps = []
    for d in range(dsize):
        first, weights = fill(d)
        taps.append([(min(max(first + t, 0), ssize - 1), weights[t]) for t in range(k)])
    return taps


def _linear(ssize, dsize, scale):
    def fill(d):
        fx = (d + 0.5) * scale - 0.5
        sx = math.floor(fx)
        fx -= sx
        if sx < 0:
            fx, sx = 0.0, 0
        if sx >= ssize - 1:
            fx, sx = 0.0, ssize - 1
        return sx, [1 - fx, fx]
    return _fixed_taps(dsize, ssize, 2, fill)


def _area_up(ssize, dsize, scale, inv_scale):
    def fill(d):
        sx = math.floor(d * scale)
        fx = d + 1 - (sx + 1) * inv_scale
        fx = 0.0 if fx <= 0 else fx - math.floor(fx)
        if sx >= ssize - 1:
            fx, sx = 0.0, ssize - 1
        return sx, [1 - fx, fx]
    return _fixed_taps(dsize, ssize, 2, fill)


def _cubic(ssize, dsize, scale):
    a = -0.75

    def fill(d):
        fx = (d + 0.5) * scale - 0.5
        sx = math.floor(fx)
        fx -= sx
        w0 = ((a * (fx + 1) - 5 * a) * (fx + 1) + 8 * a) * (fx + 1) - 4 * a
        w1 = ((a + 2) * fx - (a + 3)) * fx * fx + 1
        w2 = ((a + 2) * (1 - fx) - (a + 3)) * (1 - fx) * (1 - fx) + 1
        return sx - 1, [w0, w1, w2, 1 - w0 - w1 - w2]
    return _fixed_taps(dsize, ssize, 4, fill)


def _lanczos(ssize, dsize, scale):
    def fill(d):
        fx = (d + 0.5) * scale - 0.5
        sx = math.floor(fx)
        fx -= sx
        w = [0.0] * 8
        if fx < 1e-6:
            w[3] = 1.0
        elif fx > 1 - 1e-6:
            w[4] = 1.0
        else:
            total = 0.0
            for i in range(8):
                x = fx + 3 - i
                w[i] = (math.sin(math.pi * x) * math.sin(math.pi * x / 4)) / (math.pi * math.pi * x * x / 4)
                total += w[i]
            w = [v / total for v in w]
        return sx - 3, w
    return _fixed_taps(dsize, ssize, 8, fill)


def _nearest(ssize, dsize, scale):
    return _fixed_taps(dsize, ssize, 1, lambda d: (min(math.floor(d * scale), ssize - 1), [1.0]))


def _area_down(ssize, dsize, scale):
    taps = []
    for d in range(dsize):
        fsx1 = d * scale
        fsx2 = fsx1 + scale
        cell = min(scale, ssize - fsx1)
        sx1 = math.ceil(fsx1)
        sx2 = min(math.floor(fsx2), ssize - 1)
        sx1 = min(sx1, sx2)
        row = []
        if sx1 - fsx1 > 1e-3:
            row.append((sx1 - 1, (sx1 - fsx1) / cell))
        for sx in range(sx1, sx2):
            row.append((sx, 1 / cell))
        if fsx2 - sx2 > 1e-3:
            row.append((sx2, min(min(fsx2 - sx2, 1), cell) / cell))
        taps.append(row)
    return taps


def _axis_taps(interp, ssize, dsize, area_down):
    inv_scale = dsize / ssize
    scale = 1 / inv_scale
    if interp == 0:
        return _nearest(ssize, dsize, scale)
    if interp == 1:
        return _linear(ssize, dsize, scale)
    if interp == 2:
        return _cubic(ssize, dsize, scale)
    if interp == 3:
        return _area_down(ssize, dsize, scale) if area_down else _area_up(ssize, dsize, scale, inv_scale)
    return _lanczos(ssize, dsize, scale)


def imresize(src, w, h, interp=1):
    """cv::resize(src, (w, h), interp) as @mx computes it; src HWC uint8 / float32 / float64."""
    sh, sw, c = src.shape
    if (sw, sh) == (w, h):
        return src.copy()
    area_down = interp == 3 and sw >= w and sh >= h
    tx = _axis_taps(interp, sw, w, area_down)
    ty = _axis_taps(interp, sh, h, area_down)
    if interp == 0:
        ys = [row[0][0] for row in ty]
        xs = [row[0][0] for row in tx]
        return src[ys][:, xs].copy()
    s = src.astype(np.float64)
    tmp = np.zeros((sh, w, c))
    for x, row in enumerate(tx):
        acc = np.zeros((sh, c))
        for (i, wt) in row:
            acc = acc + wt * s[:, i, :]
        tmp[:, x, :] = acc
    out = np.zeros((h, w, c))
    for y, row in enumerate(ty):
        acc = np.zeros((w, c))
        for (i, wt) in row:
            acc = acc + wt * tmp[i]
        out[y] = acc
    if src.dtype == np.uint8:
        return np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8)
    return out.astype(src.dtype)


# ---------------------------------------------------------------- image.py functions


def get_interp_method(interp, sizes=()):
    if interp == 9:
        if sizes:
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    assert interp in (0, 1, 2, 3, 4)
    return interp


def scale_down(src_size, size):
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size, interp=2):
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    out = src[y0:y0 + h, x0:x0 + w].copy()
    if size is not None and (w, h) != tuple(size):
        out = imresize(out, size[0], size[1], get_interp_method(interp, (h, w, size[1], size[0])))
    return out


def random_crop(src, size, interp=2):
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def f32(v):
    return np.asarray(v, dtype=np.float32)


def color_normalize(src, mean, std=None):
    if mean is not None:
        src = src - f32(mean)
    if std is not None:
        src = src / f32(std)
    return src


def random_size_crop(src, size, area, ratio, interp=2):
    h, w, _ = src.shape
    src_area = h * w
    if isinstance(area, (int, float)):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


# ---------------------------------------------------------------- color math with the factor given

COEF = np.array([0.299, 0.587, 0.114], dtype=np.float32)
TYIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
ITYIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])
GRAY = np.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])


def _mat_apply(src, m):
    """out[..., j] = sum_i src[..., i] * m[i, j], with m rounded to float32, summed in float64."""
    return (src.astype(np.float64) @ f32(m).astype(np.float64)).astype(np.float32)


def brightness(src, alpha):
    return src * np.float32(alpha)


def contrast(src, alpha):
    gray = src * COEF
    total = np.float32(gray.astype(np.float64).sum())
    gray = np.float32(3.0 * (1.0 - alpha) / gray.size) * total
    return src * np.float32(alpha) + gray


def saturation(src, alpha):
    g = src * COEF
    gray = ((g[..., 0] + g[..., 1]) + g[..., 2])[..., None]
    gray = gray * np.float32(1.0 - alpha)
    return src * np.float32(alpha) + gray


def hue(src, alpha):
    u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
    bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
    t = np.dot(np.dot(ITYIQ, bt), TYIQ).T
    return _mat_apply(src, t)


def pca_offset(alpha, eigval, eigvec):
    return np.dot(np.asarray(eigvec) * alpha, np.asarray(eigval))


def lighting(src, rgb):
    return src + f32(rgb)


def to_gray(src):
    return _mat_apply(src, GRAY)


# ---------------------------------------------------------------- augmenters


class Augmenter:
    def __init__(self, **kwargs):
        self._kwargs = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}

    def dumps(self):
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


class SequentialAug(Augmenter):
    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class RandomOrderAug(SequentialAug):
    def __call__(self, src):
        random.shuffle(self.ts)
        for t in self.ts:
            src = t(src)
        return src


class ResizeAug(Augmenter):
    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, self.size[0], self.size[1], get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    def __init__(self, size, area, ratio, interp=2):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(Augmenter):
    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        return brightness(src, 1.0 + random.uniform(-self.brightness, self.brightness))


class ContrastJitterAug(Augmenter):
    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast

    def __call__(self, src):
        return contrast(src, 1.0 + random.uniform(-self.contrast, self.contrast))


class SaturationJitterAug(Augmenter):
    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation

    def __call__(self, src):
        return saturation(src, 1.0 + random.uniform(-self.saturation, self.saturation))


class HueJitterAug(Augmenter):
    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        return hue(src, random.uniform(-self.hue, self.hue))


class ColorJitterAug(RandomOrderAug):
    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, eigval, eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        return lighting(src, pca_offset(alpha, self.eigval, self.eigvec))


class ColorNormalizeAug(Augmenter):
    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean, self.std = mean, std

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = to_gray(src)
        return src


class HorizontalFlipAug(Augmenter):
    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = src[:, ::-1].copy()
        return src


class CastAug(Augmenter):
    def __init__(self, typ='float32'):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def create_augmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,
                     mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                     pca_noise=0, rand_gray=0, inter_method=2):
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        assert rand_crop
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009],
                           [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        auglist.append(LightingAug(pca_noise, eigval, eigvec))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = np.array([123.68, 116.28, 103.53])
    if std is True:
        std = np.array([58.395, 57.12, 57.375])
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist
