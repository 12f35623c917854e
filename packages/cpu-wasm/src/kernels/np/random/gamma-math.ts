/**
 * Gamma sampling and its implicit reparameterization gradient, in float64.
 *
 * Sampling is Marsaglia and Tsang's squeeze/rejection method (a normal and a uniform per try),
 * with the usual boost for shape < 1 (Gamma(a + 1) · U^(1/a)); shape 0 gives 0 as NumPy does.
 *
 * The gradient of a standard-gamma sample x w.r.t. its shape a is the implicit one MXNet 2.0 uses
 * (`_backward_gamma_sample`): dx/da = -(∂P(a, x)/∂a) / p(x; a), P the regularized lower incomplete
 * gamma function and p the density. Here ∂P/∂a is a five-point central difference of P in a
 * (step 1e-3·a, truncation error ~1e-12 relative), and P is computed by its power series below
 * x < a + 1 and by the Lentz continued fraction of Q = 1 - P above — the textbook evaluations,
 * accurate to ~1e-14. Checked against mpmath in the golden data (tools/golden/np/np_random.py).
 */

/** log Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; reflection is not needed for x > 0). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let s = c[0] as number;
  for (let i = 1; i < 9; i++) s += (c[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** The regularized lower incomplete gamma function P(a, x), a > 0, x >= 0. */
export function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  const front = Math.exp(-x + a * Math.log(x) - logGamma(a));
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-17) break;
    }
    return sum * front;
  }
  // Q(a, x) by the continued fraction 1 / (x + 1 - a - 1·(1 - a) / (x + 3 - a - ...)), modified Lentz.
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return 1 - front * h;
}

/** d x / d a for a standard-gamma sample x with shape a (0 where the density underflows). */
export function gammaImplicitGrad(a: number, x: number): number {
  if (!(a > 0) || !(x > 0)) return 0;
  const h = 1e-3 * a;
  const dP =
    (-gammaP(a + 2 * h, x) + 8 * gammaP(a + h, x) - 8 * gammaP(a - h, x) + gammaP(a - 2 * h, x)) / (12 * h);
  const logPdf = (a - 1) * Math.log(x) - x - logGamma(a);
  const pdf = Math.exp(logPdf);
  if (!(pdf > 0)) return 0;
  const r = -dP / pdf;
  return Number.isFinite(r) ? r : 0;
}

/** One Gamma(a, 1) sample from `unif` (in [0, 1)) and `norm` (N(0, 1)) draws. */
export function sampleStdGamma(a: number, unif: () => number, norm: () => number): number {
  if (a === 0) return 0;
  if (a < 1) {
    const g = sampleStdGamma(a + 1, unif, norm);
    return g * (1 - unif()) ** (1 / a);
  }
  const d = a - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let z: number;
    let v: number;
    do {
      z = norm();
      v = 1 + c * z;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - unif();
    const z2 = z * z;
    if (u < 1 - 0.0331 * z2 * z2) return d * v;
    if (Math.log(u) < 0.5 * z2 + d * (1 - v + Math.log(v))) return d * v;
  }
}
