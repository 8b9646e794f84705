/** Reads /metrics the way an operator's Prometheus does on the public port: with the admin token (contract §6). */
import { ADMIN_TOKEN } from './server.js';

export async function scrape(url: string, token = ADMIN_TOKEN): Promise<string> {
  const res = await fetch(url + '/metrics', { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status} ${text}`);
  return text;
}
