/**
 * What the service sends, not what it answers: the postback of contract §3, an OpenAPI 3.1
 * webhook so that customers' receivers are described in the same document.
 */
export const WEBHOOKS = {
  trigger: {
    post: {
      operationId: 'postback_trigger',
      summary: "A trigger POSTed to the app's postback URL",
      description: 'signature = lowercase hex HMAC-SHA256(app_secret, "<timestamp>.<raw body>"); check it with `verifyPostback` '
        + 'from `dwell/client`. Any 2xx within 10 s acknowledges; otherwise retried with backoff for 24 h, then dead. At least '
        + 'once: deduplicate on `X-Trigger-Id`.',
      parameters: [
        { name: 'timestamp', in: 'query', required: true, description: 'Unix seconds', schema: { type: 'string', pattern: '^\\d+$' } },
        { name: 'signature', in: 'query', required: true, description: 'hex HMAC-SHA256 of "<timestamp>.<raw body>"', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
        { name: 'X-Trigger-Id', in: 'header', required: true, description: '`data.id`: the same on every retry', schema: { type: 'string' } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Trigger' } } } },
      responses: { '200': { description: 'Any 2xx acknowledges the trigger' } },
    },
  },
};
