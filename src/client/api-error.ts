/**
 * An error answer of the service (contract §5) as the client throws it: the HTTP status, the
 * error code, the message, and the JSON Pointer into the request body where it applies.
 */

export interface ErrorAnswer {
  result: 'ERROR';
  error: { code: string; message: string; path?: string };
}

export class DwellApiError extends Error {
  override readonly name = 'DwellApiError';
  /** `invalid_request`, `not_found`, `rate_limited`, … (contract §5); `http_<status>` when the body was not Dwell's. */
  readonly code: string;
  /** JSON Pointer into the request body, when the server named one. */
  readonly path?: string;

  constructor(
    readonly status: number,
    /** The answer as the server sent it: its JSON, or its text when it was not JSON. */
    readonly answer: unknown,
    /** Seconds, from the answer's `Retry-After` (429 and 503). */
    readonly retryAfterS?: number,
  ) {
    const e = isErrorAnswer(answer) ? answer.error : undefined;
    super(e ? `${status} ${e.code}: ${e.message}` : `${status}: ${typeof answer === 'string' ? answer.slice(0, 200) : 'unexpected answer'}`);
    this.code = e?.code ?? `http_${status}`;
    if (e?.path !== undefined) this.path = e.path;
  }
}

function isErrorAnswer(body: unknown): body is ErrorAnswer {
  const e = (body as ErrorAnswer | null)?.error;
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.message === 'string';
}
