/**
 * The client for customers' servers (issue 18): detection, geofences, beacons and the privacy endpoints of
 * one app, signed with its key and secret. Answers are the server's JSON; an error answer is
 * thrown as a DwellApiError carrying the contract's code.
 */
import { DwellApiError } from './api-error.js';
import { RETRY_DEFAULTS, type RetryOptions } from './retry.js';
import { Transport } from './transport.js';
import type {
  BeaconCreate, BeaconImportResult, BeaconList, BeaconQuery, BeaconRecord, BeaconUpdate,
  DetectAnswer, DetectRequest, EraseAnswer, ExportAnswer, FeedbackAnswer, GeofenceCreate, GeofenceList, GeofenceQuery, GeofenceRecord,
  GeofenceImportResult, GeofenceNearQuery, GeofenceUpdate, NearGeofenceList, UserRef, VisitFeedback,
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
    /** Nearest first, each with `distance` in metres (0 inside); pages as `list`. */
    near: ({ lat, long, ...rest }: GeofenceNearQuery): Promise<NearGeofenceList> =>
      this.t.request('GET', `${this.app}/geofences${queryString({ near: `${lat},${long}`, ...rest })}`),
    /** Up to 100,000 at once, sent as a JSON array; an entry whose `external_id` names a geofence updates it. Bad entries come back by line (1-based). */
    import: (geofences: Array<GeofenceCreate | GeofenceUpdate>): Promise<GeofenceImportResult> => this.t.request('POST', `${this.app}/geofences/import`, geofences),
  };

  /** The app's beacon registry (contract §9). A duplicate uuid/major/minor throws a 409 DwellApiError. */
  readonly beacons = {
    /** Answers the new beacon's id. */
    create: (beacon: BeaconCreate): Promise<string> => this.t.request('POST', `${this.app}/beacons/create`, beacon),
    update: (id: string, patch: BeaconUpdate): Promise<string> => this.t.request('POST', `${this.beacon(id)}/update`, patch),
    get: (id: string): Promise<BeaconRecord> => this.t.request('GET', this.beacon(id)),
    list: (query: BeaconQuery = {}): Promise<BeaconList> => this.t.request('GET', `${this.app}/beacons${queryString(query)}`),
    delete: (id: string): Promise<string> => this.t.request('POST', `${this.beacon(id)}/delete`),
    /** Up to 100,000 at once, sent as a JSON array; a matching uuid/major/minor updates. Bad entries come back by line (1-based). */
    import: (beacons: BeaconCreate[]): Promise<BeaconImportResult> => this.t.request('POST', `${this.app}/beacons/import`, beacons),
  };

  /**
   * Where the user really was at a visit Dwell answered them (contract §10): `confirm` its place,
   * `wrong_venue` with the true `venue_id`, or `not_a_stop`. A visit id not answered to this user in
   * this app throws a 404 DwellApiError; feedback again on the same visit replaces the earlier one.
   */
  visitFeedback(visitId: string, feedback: VisitFeedback): Promise<FeedbackAnswer> {
    return this.t.request('POST', `${this.app}/visits/${encodeURIComponent(visitId)}/feedback`, feedback);
  }

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

  private beacon(id: string): string {
    return `${this.app}/beacons/${encodeURIComponent(id)}`;
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
