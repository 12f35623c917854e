"""Minimax fits of the float32 exp polynomials in src/codegen/vmath.ts (run: python3 tools/fit-exp.py).

EXP_Q32: exp(r) ~= 1 + r*Q(r), Q of degree 4, on |r| <= ln2/2 -- the softmax exp
(`emitExpNonPositiveGroup`). Lawson's iteration (iteratively reweighted least squares) on Chebyshev
nodes minimises the maximum relative error; the coefficients are then rounded to float32 and the
error re-measured in float64 on a dense grid. Prints Q from the highest power down (Horner order).
"""
import numpy as np

H = np.log(2) / 2


def fit(degree: int, nodes: int = 4001, iters: int = 300) -> np.ndarray:
    x = H * np.cos(np.pi * (np.arange(nodes) + 0.5) / nodes)
    f = np.exp(x)
    a = np.stack([x**k for k in range(1, degree + 1)], 1) / f[:, None]
    b = (f - 1) / f
    w = np.ones(nodes) / nodes
    for _ in range(iters):
        sw = np.sqrt(w)
        c, *_ = np.linalg.lstsq(a * sw[:, None], b * sw, rcond=None)
        w = w * np.abs(a @ c - b)
        w /= w.sum()
    return c


def main() -> None:
    c32 = fit(5).astype(np.float32)
    xs = np.linspace(-H, H, 200001)
    q = np.zeros_like(xs)
    for k in range(len(c32) - 1, -1, -1):
        q = q * xs + float(c32[k])
    rel = np.max(np.abs(1 + xs * q - np.exp(xs)) / np.exp(xs))
    print("EXP_Q32 =", [float(f"{v:.8g}") for v in c32[::-1]])
    print(f"max relative approximation error {rel:.3g} ({rel / 2**-23:.2f} ulp)")


if __name__ == "__main__":
    main()
