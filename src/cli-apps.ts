/**
 * `dwell apps …`: the admin API from the command line. It talks to the running server (apps are
 * cached there), with DWELL_ADMIN_TOKEN as the bearer. Its flags are declared in cli-flags.ts.
 */
import { loadConfig } from './config.js';

export async function runApps(sub: string, appKey: string | undefined, v: Record<string, string | boolean>): Promise<number> {
  const config = loadConfig({}, process.env);
  const base = String(v['url-base'] ?? process.env.DWELL_URL ?? `http://127.0.0.1:${config.port}`);
  const token = String(v['admin-token'] ?? config.adminToken);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    process.stdout.write(text + '\n');
    return res.ok ? 0 : 1;
  };
  const need = () => {
    if (!appKey) throw new Error(`dwell apps ${sub} needs an app key`);
    return encodeURIComponent(appKey);
  };
  switch (sub) {
    case 'create':
      return call('POST', '/admin/apps', { name: v.name, delivery: deliveryFrom(v) ?? { method: 'sync' }, ...dwell(v) });
    case 'show':
      return call('GET', `/admin/apps/${need()}`);
    case 'update':
      return call('PATCH', `/admin/apps/${need()}`, { ...(v.name ? { name: v.name } : {}), ...(deliveryFrom(v) ? { delivery: deliveryFrom(v) } : {}), ...dwell(v) });
    case 'rotate-secret':
      return call('POST', `/admin/apps/${need()}/rotate-secret`);
    case 'deliveries':
      return call('GET', `/admin/apps/${need()}/deliveries?status=${v.status ?? 'pending'}`);
    case 'replay':
      return call('POST', `/admin/apps/${need()}/deliveries/replay`);
    case 'delete':
      return call('DELETE', `/admin/apps/${need()}`);
    default:
      throw new Error('dwell apps create|show|update|rotate-secret|deliveries|replay|delete');
  }
}

function dwell(v: Record<string, string | boolean>) {
  return v['confirm-dwell-s'] ? { confirm_dwell_s: Number(v['confirm-dwell-s']) } : {};
}

function deliveryFrom(v: Record<string, string | boolean>): Record<string, unknown> | undefined {
  if (v.delivery === undefined) return undefined;
  const method = String(v.delivery);
  if (method === 'postback') return { method, url: v.url };
  if (method === 'bucket') {
    const d: Record<string, unknown> = { method, provider: v.provider, bucket: v.bucket };
    for (const k of ['prefix', 'region', 'endpoint']) if (v[k]) d[k] = v[k];
    if (v.credentials) d.credentials = JSON.parse(String(v.credentials));
    return d;
  }
  return { method };
}
