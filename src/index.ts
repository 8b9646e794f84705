/** What the package offers to code outside the service: today, the postback check for receivers. */
export { verifyPostback, type PostbackQuery } from './client/verify-postback.js';
