/**
 * What the API document says about one route, keyed by the route as the server registers it
 * (`POST /v2/apps/:app_key/geofences/create`). Schemas are named, from openapi-schemas.ts.
 */

export interface Answer {
  description: string;
  /** A name in SCHEMAS; JSON unless `contentType` says otherwise. */
  schema?: string;
  contentType?: string;
  /** A literal schema, for answers that are not JSON objects of ours (Prometheus text, HTML). */
  raw?: Record<string, unknown>;
  /** Further media types of the same answer (a static file is a script, a style or a page), same schema. */
  alsoAs?: string[];
}

export interface OperationDoc {
  tag: 'Detection' | 'Geofences' | 'Place triggers' | 'Beacons' | 'Users' | 'Admin' | 'Service';
  summary: string;
  description?: string;
  /** signed: contract §1; admin: the bearer token; open: anyone; metrics: the bearer token or none, as configured. */
  auth: 'signed' | 'admin' | 'open' | 'metrics';
  body?: {
    schema: string; description?: string; required?: boolean;
    /** Media types accepted beside application/json, each with its literal schema (NDJSON: a string of lines). */
    also?: Record<string, Record<string, unknown>>;
  };
  query?: Array<{ name: string; description: string; schema: Record<string, unknown>; required?: boolean }>;
  answers: Record<number, Answer>;
  /** Error statuses beyond those the route's kind always may answer (see openapi-errors.ts). */
  errors?: number[];
}

/** The key of a route: method and pattern as given to Router.add. */
export const routeKey = (method: string, pattern: string) => `${method} ${pattern}`;
