/**
 * The shapes of the per-app learned tables (tables.ts). Detection fills them in
 * (detect/evidence/wifi.ts, evidence/position.ts); they are defined here, with the tables, so
 * that state never imports detection. Short keys keep the stored values small.
 */

/** A joined network's pooled GPS evidence (detect/evidence/wifi.ts). */
export interface PooledAp {
  /** Stays pooled. */ n: number;
  /** venue id → [sum of relative log likelihoods, stays that listed it]. */ v: Record<string, [number, number]>;
}

/**
 * A located access point: [Σw, Σw·lat, Σw·lon, stays] (detect/evidence/position.ts), then the box
 * of its stays and the users who taught it (integrity/networks.ts), where learned since §12.
 */
export type ApPlace = [number, number, number, number, ...number[]];

/**
 * A beacon nobody registered, as the app's confident stays heard it (detect/evidence/learned-beacons.ts):
 * venue id → [Σw, Σw·x], w the venue's probability at the stay, x the mean rssi less tx_power (dB).
 */
export interface HeardBeacon {
  /** Stays taught. */ n: number;
  v: Record<string, [number, number]>;
}
