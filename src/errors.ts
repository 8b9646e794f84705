/**
 * The one error type of the service. Everything that can go wrong in a request ends as a
 * DwellError, which the HTTP shell turns into contract §5's JSON body and status.
 */
export type ErrorCode =
  | 'invalid_request' | 'invalid_json' | 'invalid_gzip'
  | 'missing_auth' | 'unknown_app' | 'invalid_signature' | 'stale_timestamp' | 'replayed_request' | 'invalid_token'
  | 'forbidden' | 'not_found' | 'method_not_allowed' | 'conflict' | 'body_too_large'
  | 'unsupported_media_type' | 'rate_limited' | 'internal' | 'unavailable';

export const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400, invalid_json: 400, invalid_gzip: 400,
  missing_auth: 401, unknown_app: 401, invalid_signature: 401, stale_timestamp: 401, replayed_request: 401, invalid_token: 401,
  forbidden: 403, not_found: 404, method_not_allowed: 405, conflict: 409, body_too_large: 413,
  unsupported_media_type: 415, rate_limited: 429, internal: 500, unavailable: 503,
};

export interface ErrorBody {
  result: 'ERROR';
  error: { code: ErrorCode; message: string; path?: string };
}

export class DwellError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** JSON Pointer into the request body, where the fault lies. */
    readonly path?: string,
    /** Seconds, for 429 and 503. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'DwellError';
    this.status = STATUS[code];
  }

  toJSON(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.path !== undefined) error.path = this.path;
    return { result: 'ERROR', error };
  }

  /** Rebuilds an error that crossed a worker boundary as plain data. */
  static fromJSON(body: ErrorBody['error']): DwellError {
    // The wait is not carried across; a 503 must still say when to come back (contract §5).
    return new DwellError(body.code, body.message, body.path, body.code === 'unavailable' ? 2 : undefined);
  }
}

export const invalid = (path: string, message: string) => new DwellError('invalid_request', message, path);

/** Any thrown value as a DwellError; unknown faults become a 500 that says nothing of internals. */
export function asDwellError(err: unknown): DwellError {
  return err instanceof DwellError ? err : new DwellError('internal', 'internal error');
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function pointerSegment(s: string | number): string {
  return String(s).replace(/~/g, '~0').replace(/\//g, '~1');
}
