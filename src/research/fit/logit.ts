/**
 * A conditional logit over each stay's outcomes (its candidates and "none of these"): the
 * probability of row r is exp(β·x_r) / Σ exp(β·x_r'), and β maximises the log likelihood of the
 * true rows, less a small ridge towards the coefficients the terms were ranked with (it keeps a
 * column the data never moves where it was). Newton's method with a halving step: the log
 * likelihood is concave, and a few dozen coefficients make the Hessian small.
 */
import type { LabelledStay } from './record.js';

export interface Columns {
  /** Column count. */
  k: number;
  /** Writes stay s's row r into out (length k). */
  row(s: LabelledStay, r: number, out: Float64Array): void;
}

export interface Fit { beta: Float64Array; logLik: number; iterations: number; stays: number }

/** Log likelihood, gradient and Hessian (negative semidefinite) at β. */
function evaluate(stays: readonly LabelledStay[], cols: Columns, beta: Float64Array, withDerivs: boolean) {
  const k = cols.k;
  const g = new Float64Array(k), H = new Float64Array(k * k);
  const xr = new Float64Array(k), ex = new Float64Array(k), exx = new Float64Array(k * k), xy = new Float64Array(k);
  let ll = 0;
  for (const s of stays) {
    if (s.rows < 1 || s.y < 0) continue;
    let max = -Infinity;
    const sc = new Float64Array(s.rows);
    for (let r = 0; r < s.rows; r++) {
      cols.row(s, r, xr);
      let v = 0;
      for (let j = 0; j < k; j++) v += beta[j] * xr[j];
      sc[r] = v;
      if (v > max) max = v;
    }
    let z = 0;
    for (let r = 0; r < s.rows; r++) z += Math.exp(sc[r] - max);
    ll += sc[s.y] - max - Math.log(z);
    if (!withDerivs) continue;
    ex.fill(0); exx.fill(0);
    for (let r = 0; r < s.rows; r++) {
      const p = Math.exp(sc[r] - max) / z;
      if (p < 1e-12) continue;
      cols.row(s, r, xr);
      for (let a = 0; a < k; a++) {
        if (xr[a] === 0) continue;
        ex[a] += p * xr[a];
        for (let b = 0; b < k; b++) exx[a * k + b] += p * xr[a] * xr[b];
      }
    }
    cols.row(s, s.y, xy);
    for (let a = 0; a < k; a++) {
      g[a] += xy[a] - ex[a];
      for (let b = 0; b < k; b++) H[a * k + b] -= exx[a * k + b] - ex[a] * ex[b];
    }
  }
  return { ll, g, H };
}

/** Solves A x = b (A symmetric positive definite, k × k) by Gaussian elimination with pivoting. */
function solve(A: Float64Array, b: Float64Array, k: number): Float64Array {
  const m = Float64Array.from(A), x = Float64Array.from(b);
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(m[r * k + c]) > Math.abs(m[p * k + c])) p = r;
    if (p !== c) {
      for (let j = 0; j < k; j++) { const t = m[c * k + j]; m[c * k + j] = m[p * k + j]; m[p * k + j] = t; }
      const t = x[c]; x[c] = x[p]; x[p] = t;
    }
    for (let r = c + 1; r < k; r++) {
      const f = m[r * k + c] / m[c * k + c];
      if (f === 0) continue;
      for (let j = c; j < k; j++) m[r * k + j] -= f * m[c * k + j];
      x[r] -= f * x[c];
    }
  }
  for (let c = k - 1; c >= 0; c--) {
    let v = x[c];
    for (let j = c + 1; j < k; j++) v -= m[c * k + j] * x[j];
    x[c] = v / m[c * k + c];
  }
  return x;
}

/** Maximises Σ log P(true row) − ridge/2 · |β − prior|² from β = prior. */
export function fitLogit(stays: readonly LabelledStay[], cols: Columns, prior: Float64Array, ridge = 1, maxIter = 30): Fit {
  const k = cols.k;
  let beta = Float64Array.from(prior);
  const pen = (b: Float64Array) => { let s = 0; for (let j = 0; j < k; j++) s += (b[j] - prior[j]) ** 2; return (ridge / 2) * s; };
  let cur = evaluate(stays, cols, beta, true);
  let obj = cur.ll - pen(beta), it = 0;
  for (; it < maxIter; it++) {
    const A = new Float64Array(k * k), b = new Float64Array(k);
    for (let a = 0; a < k; a++) {
      b[a] = cur.g[a] - ridge * (beta[a] - prior[a]);
      for (let c = 0; c < k; c++) A[a * k + c] = -cur.H[a * k + c] + (a === c ? ridge : 0);
    }
    const step = solve(A, b, k);
    let t = 1, next = beta, nextObj = -Infinity;
    for (; t > 1e-4; t /= 2) {
      next = beta.map((v, j) => v + t * step[j]);
      nextObj = evaluate(stays, cols, next, false).ll - pen(next);
      if (nextObj >= obj) break;
    }
    if (!(nextObj >= obj)) break;
    const gain = nextObj - obj;
    beta = next; obj = nextObj;
    cur = evaluate(stays, cols, beta, true);
    if (gain < 1e-6) break;
  }
  let n = 0;
  for (const s of stays) if (s.rows >= 1 && s.y >= 0) n++;
  return { beta, logLik: cur.ll, iterations: it, stays: n };
}

/** In-sample top1, log loss and 10-bin ECE of the top probability, under β. */
export function describe(stays: readonly LabelledStay[], cols: Columns, beta: Float64Array) {
  const xr = new Float64Array(cols.k);
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, hit: 0 }));
  let n = 0, hit = 0, ll = 0;
  for (const s of stays) {
    if (s.rows < 1 || s.y < 0) continue;
    const sc = new Float64Array(s.rows);
    let max = -Infinity, best = 1;
    for (let r = 0; r < s.rows; r++) {
      cols.row(s, r, xr);
      let v = 0;
      for (let j = 0; j < cols.k; j++) v += beta[j] * xr[j];
      sc[r] = v; if (v > max) max = v;
      if (r >= 1 && v > sc[best]) best = r;
    }
    let z = 0;
    for (let r = 0; r < s.rows; r++) z += Math.exp(sc[r] - max);
    const pTop = s.rows > 1 ? Math.exp(sc[best] - max) / z : 0;
    n++; ll += sc[s.y] - max - Math.log(z);
    const ok = s.rows > 1 && best === s.y ? 1 : 0;
    hit += ok;
    const bin = bins[Math.min(9, Math.floor(pTop * 10))];
    bin.n++; bin.p += pTop; bin.hit += ok;
  }
  const ece = bins.reduce((e, b) => e + (b.n ? Math.abs(b.p - b.hit) / n : 0), 0);
  return { stays: n, top1: hit / n, logLoss: -ll / n, ece };
}
