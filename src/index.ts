/** What the package offers to code outside the service: today, the postback check for receivers. */
export { verifyPostback, type PostbackQuery } from './delivery/postback/verify.js';
