/** Log density of a Gaussian at x, less the constant −½·log 2π (it cancels between candidates). */
export const gaussLog = (x: number, mu: number, sd: number): number => { const z = (x - mu) / sd; return -0.5 * z * z - Math.log(sd); };
