/**
 * The client for customers' servers (issue 18): detection, geofences and the privacy endpoints of
 * one app, signed with its key and secret. Answers are the server's JSON; an error answer is
 * thrown as a DwellApiError carrying the contract's code.
 */
import { DwellApiError } from './api-error.js';
import { RETRY_DEFAULTS, type RetryOptions } from './retry.js';
import { Transport } from './transport.js';
import type {
  DetectAnswer, DetectRequest, EraseAnswer, ExportAnswer, GeofenceCreate, GeofenceList, GeofenceQuery, GeofenceRecord,
  GeofenceUpdate, UserRef,
} from './types.js';

export interface DwellClientOptions {
  /** The service's base URL, e.g. `https://dwell.example.com`. */
  url: string;
  appKey: string;
  appSecret: string;
  retry?: RetryOptions;
  /** Gzip request bodies (default true). */
  gzip?: boolean;
  /** Per attempt, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Another fetch (a proxy agent, instrumentation); the global one by default. */
  fetch?: typeof fetch;
}

export class DwellClient {
  private readonly t: Transport;
  private readonly app: string;

  constructor(o: DwellClientOptions) {
    if (!o.url || !o.appKey || !o.appSecret) throw new TypeError('DwellClient needs url, appKey and appSecret');
    this.t = new Transport({
      url: o.url, appKey: o.appKey, appSecret: o.appSecret,
      retry: { ...RETRY_DEFAULTS, ...o.retry },
      gzip: o.gzip ?? true,
      timeoutMs: o.timeoutMs ?? 30_000,
      fetch: o.fetch ?? globalThis.fetch,
    });
    this.app = `/v2/apps/${encodeURIComponent(o.appKey)}`;
  }

  /** `POST /v1/detect`: a sync app's visits, or a postback/bucket app's acknowledgement. */
  detect(request: DetectRequest): Promise<DetectAnswer> {
    return this.t.request('POST', '/v1/detect', request);
  }

  /** The app's geofences (contract §4). `get` of an unknown or expired id throws a 404 DwellApiError. */
  readonly geofences = {
    /** Answers the new geofence's id. */
    create: (geofence: GeofenceCreate): Promise<string> => this.t.request('POST', `${this.app}/geofences/create`, geofence),
    update: (id: string, patch: GeofenceUpdate): Promise<string> => this.t.request('POST', `${this.fence(id)}/update`, patch),
    get: (id: string): Promise<GeofenceRecord> => this.t.request('GET', this.fence(id)),
    /** One page; pass `next_cursor` back as `cursor` for the next, until it is null. */
    list: (query: GeofenceQuery = {}): Promise<GeofenceList> => this.t.request('GET', `${this.app}/geofences${queryString(query)}`),
    delete: (id: string): Promise<string> => this.t.request('POST', `${this.fence(id)}/delete`),
  };

  /** A user's data in this app (contract §7). */
  readonly users = {
    /** Idempotent: an unknown user answers zero counts. */
    erase: (user: UserRef): Promise<EraseAnswer> => this.t.request('POST', `${this.app}/users/erase`, user),
    export: (user: UserRef): Promise<ExportAnswer> => this.t.request('GET', `${this.app}/users/export${queryString(user)}`),
  };

  /** True when `err` is the service's answer with this code (`not_found`, `rate_limited`, …). */
  static isError(err: unknown, code?: string): err is DwellApiError {
    return err instanceof DwellApiError && (code === undefined || err.code === code);
  }

  private fence(id: string): string {
    return `${this.app}/geofences/${encodeURIComponent(id)}`;
  }
}

function queryString(q: object): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}
