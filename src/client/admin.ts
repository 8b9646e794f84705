/**
 * The admin API (contract §6) for an operator's scripts, the `dwell apps` command and the tests:
 * apps, their deliveries, app deletion, behind the bearer token. Answers are the server's JSON;
 * an error answer is thrown as a DwellApiError carrying the contract's code. No retries: an admin
 * call is a person's or a script's single step, and a POST like rotate-secret is not idempotent.
 */
import { DwellApiError } from './api-error.js';
import type { CreateApp, UpdateApp } from '../schemas/app.js';

export interface DwellAdminOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** DWELL_ADMIN_TOKEN of the server. */
  token: string;
  /** Another fetch (instrumentation, a proxy agent); the global one by default. */
  fetch?: typeof fetch;
}

/** An app as the admin API shows it: the secret only in the answer that made it. */
export interface AdminApp {
  app_key: string;
  name: string;
  delivery: Record<string, unknown>;
  confirm_dwell_s: number;
  integrity: 'flag' | 'drop';
  region_events: boolean;
  created_at: string;
  updated_at: string;
}
export interface CreatedApp extends AdminApp { app_secret: string }

export type DeliveryStatus = 'pending' | 'dead';

export class DwellAdmin {
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly o: DwellAdminOptions) {
    if (!o.url) throw new TypeError('DwellAdmin needs url');
    this.base = o.url.replace(/\/+$/, '');
    this.fetch = o.fetch ?? globalThis.fetch;
  }

  createApp(app: CreateApp): Promise<CreatedApp> {
    return this.call('POST', '/admin/apps', app);
  }
  getApp(appKey: string): Promise<AdminApp> {
    return this.call('GET', this.app(appKey));
  }
  updateApp(appKey: string, change: UpdateApp): Promise<AdminApp> {
    return this.call('PATCH', this.app(appKey), change);
  }
  /** The new secret; the old one keeps working for its grace period. */
  rotateSecret(appKey: string): Promise<{ app_secret: string }> {
    return this.call('POST', `${this.app(appKey)}/rotate-secret`);
  }
  /** Deletes the app and everything stored for it (contract §7). */
  deleteApp(appKey: string): Promise<Record<string, unknown>> {
    return this.call('DELETE', this.app(appKey));
  }
  deliveries(appKey: string, status: DeliveryStatus = 'pending'): Promise<Record<string, unknown>> {
    return this.call('GET', `${this.app(appKey)}/deliveries?status=${encodeURIComponent(status)}`);
  }
  /** Requeues the app's dead triggers. */
  replayDeliveries(appKey: string): Promise<Record<string, unknown>> {
    return this.call('POST', `${this.app(appKey)}/deliveries/replay`);
  }

  /** Any admin route, for what has no method here: the parsed answer, or a DwellApiError. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetch(this.base + path, {
      method,
      headers: { authorization: `Bearer ${this.o.token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let answer: unknown = text;
    try {
      answer = JSON.parse(text);
    } catch { /* not JSON: the error below quotes the text */ }
    if (!res.ok) throw new DwellApiError(res.status, answer);
    return answer as T;
  }

  private app(appKey: string): string {
    return `/admin/apps/${encodeURIComponent(appKey)}`;
  }
}
