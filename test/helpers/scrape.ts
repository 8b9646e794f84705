/** Reads /metrics the way an operator's Prometheus does on the public port: with the admin token (contract §6). */
import { ADMIN_TOKEN } from './server.js';
import { parseExposition } from './prom-text.js';

export async function scrape(url: string, token = ADMIN_TOKEN): Promise<string> {
  const res = await fetch(url + '/metrics', { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text}`);
  return text;
}

/**
 * A counter as an operator's dashboard sums it: over every node of a cluster pair (each node
 * counts what it did), or the one server. `labels`: the sample's labels that must match.
 */
export async function counterSum(dwell: { url: string; nodes?: Array<{ url: string }> }, name: string, labels: Record<string, string> = {}): Promise<number> {
  let sum = 0;
  for (const node of dwell.nodes ?? [dwell]) {
    for (const s of parseExposition(await scrape(node.url)).samples) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
    }
  }
  return sum;
}
