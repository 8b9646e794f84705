/**
 * How a request proves its app (contract §1) and how bodies may be compressed, in the API
 * document's words. OpenAPI has no HMAC scheme, so the three headers are three apiKey schemes
 * required together, and the signature's recipe is spelled out in their descriptions.
 */

export const SIGNING = `Every customer endpoint is signed with the app's key and secret (three headers, all required):

| Header | Value |
|---|---|
| \`X-App-Key\` | the app key |
| \`X-Timestamp\` | Unix time in whole seconds |
| \`X-Signature\` | lowercase hex of HMAC-SHA256(app_secret, string_to_sign) |

\`string_to_sign\` is four lines joined by \`\\n\`, no trailing newline:

    <X-Timestamp>
    <HTTP method, upper case>
    <path and query exactly as sent, e.g. /v1/detect>
    <lowercase hex SHA-256 of the body bytes exactly as sent (the gzip bytes when gzipped; of the empty string without a body)>

The signature is checked over the raw bytes before the body is inflated or parsed. A timestamp more
than 300 s from the server's clock is 401 \`stale_timestamp\`; the same signature of a POST again
within that window is 401 \`replayed_request\` (GETs are never refused as replays). During a secret
rotation the old secret keeps working for a grace period (24 h by default). On \`/v2/apps/{app_key}/…\`
the app key in the path must be the signing app's: 403 \`forbidden\` otherwise.`;

export const GZIP = `Request bodies may be sent gzipped with \`Content-Encoding: gzip\` (or plain, without the
header); sign the bytes as sent. Limits: 1 MiB as sent, 16 MiB inflated (413 \`body_too_large\`).`;

export const RETRIES = `429 \`rate_limited\` and 503 \`unavailable\` carry \`Retry-After\` (seconds): try again after it,
signed anew. Any other 4xx is final for that request. The package's client (\`dwell/client\`) does this.`;

export const SECURITY_SCHEMES = {
  appKey: { type: 'apiKey', in: 'header', name: 'X-App-Key', description: 'The app key (issued with the app).' },
  timestamp: { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'Unix time in whole seconds; within 300 s of the server clock.' },
  signature: {
    type: 'apiKey', in: 'header', name: 'X-Signature',
    description: 'Lowercase hex HMAC-SHA256(app_secret, "<X-Timestamp>\\n<METHOD>\\n<path and query as sent>\\n<hex SHA-256 of the body bytes as sent>").',
  },
  adminToken: { type: 'http', scheme: 'bearer', description: 'DWELL_ADMIN_TOKEN. With no token configured the admin API answers 401.' },
} as const;

/** The three signing headers, required together. */
export const SIGNED = [{ appKey: [], timestamp: [], signature: [] }];
export const ADMIN = [{ adminToken: [] }];

export const CONTENT_ENCODING = {
  name: 'Content-Encoding',
  in: 'header',
  required: false,
  description: '`gzip` when the body is gzipped (sign the gzip bytes); absent or `identity` for a plain body.',
  schema: { type: 'string', enum: ['gzip', 'identity'] },
} as const;
