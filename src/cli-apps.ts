/**
 * `dwell apps …`: the admin API from the command line. It talks to the running server (apps are
 * cached there), with DWELL_ADMIN_TOKEN as the bearer. Its flags are declared in cli-flags.ts.
 */
import { loadConfig } from './config.js';
import { DwellAdmin, DwellApiError, type DeliveryStatus } from './client/index.js';
import type { CreateApp, UpdateApp } from './schemas/app.js';

export async function runApps(sub: string, appKey: string | undefined, v: Record<string, string | boolean>): Promise<number> {
  const config = loadConfig({}, process.env);
  const base = String(v['url-base'] ?? process.env.DWELL_URL ?? `http://127.0.0.1:${config.port}`);
  const token = String(v['admin-token'] ?? config.adminToken);
  const admin = new DwellAdmin({ url: base, token });
  // The answer as JSON on stdout, the error answer too (its exit code says which).
  const call = async (answer: () => Promise<unknown>) => {
    try {
      process.stdout.write(JSON.stringify(await answer()) + '\n');
      return 0;
    } catch (err) {
      if (!(err instanceof DwellApiError)) throw err;
      process.stdout.write(JSON.stringify(err.answer) + '\n');
      return 1;
    }
  };
  const need = () => {
    if (!appKey) throw new Error(`dwell apps ${sub} needs an app key`);
    return appKey;
  };
  switch (sub) {
    case 'create':
      return call(() => admin.createApp({ name: v.name, delivery: deliveryFrom(v) ?? { method: 'sync' }, ...dwell(v) } as CreateApp));
    case 'show':
      return call(() => admin.getApp(need()));
    case 'update':
      return call(() => admin.updateApp(need(), { ...(v.name ? { name: v.name } : {}), ...(deliveryFrom(v) ? { delivery: deliveryFrom(v) } : {}), ...dwell(v) } as UpdateApp));
    case 'rotate-secret':
      return call(() => admin.rotateSecret(need()));
    case 'deliveries':
      return call(() => admin.deliveries(need(), String(v.status ?? 'pending') as DeliveryStatus));
    case 'replay':
      return call(() => admin.replayDeliveries(need()));
    case 'delete':
      return call(() => admin.deleteApp(need()));
    default:
      throw new Error('dwell apps create|show|update|rotate-secret|deliveries|replay|delete');
  }
}

/** The app's settings given as flags; a value the server refuses comes back as its 400. */
function dwell(v: Record<string, string | boolean>) {
  const out: Record<string, unknown> = {};
  if (v['confirm-dwell-s']) out.confirm_dwell_s = Number(v['confirm-dwell-s']);
  if (v.integrity) out.integrity = String(v.integrity);
  if (v['region-events'] !== undefined) out.region_events = v['region-events'] === 'true' ? true : v['region-events'] === 'false' ? false : String(v['region-events']);
  return out;
}

function deliveryFrom(v: Record<string, string | boolean>): Record<string, unknown> | undefined {
  if (v.delivery === undefined) return undefined;
  const method = String(v.delivery);
  const events = v.events === undefined ? {} : { events: String(v.events).split(',').map((k) => k.trim()) };
  if (method === 'postback') return { method, url: v.url, ...events };
  if (method === 'bucket') {
    const d: Record<string, unknown> = { method, provider: v.provider, bucket: v.bucket };
    for (const k of ['prefix', 'region', 'endpoint']) if (v[k]) d[k] = v[k];
    if (v.credentials) d.credentials = JSON.parse(String(v.credentials));
    return { ...d, ...events };
  }
  return { method, ...events };
}
