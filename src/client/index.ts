/**
 * `dwell/client`: what a customer's server imports. The client signs, gzips and retries; the
 * postback check verifies what the service sends back. Nothing here reaches the server's code.
 */
export { DwellClient, type DwellClientOptions } from './dwell-client.js';
export { DwellAdmin, type DwellAdminOptions, type AdminApp, type CreatedApp, type DeliveryStatus } from './admin.js';
export { DwellApiError, type ErrorAnswer } from './api-error.js';
export type { RetryOptions } from './retry.js';
export { verifyPostback, type PostbackQuery } from './verify-postback.js';
export type * from './types.js';
