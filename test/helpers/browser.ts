/** Debian's Chromium for the explorer's tests: the development kit's (src/devkit/browser.ts), shared with bench:ui. */
export { CHROMIUM, CHROMIUM_FLAGS, launchBrowser } from '../../src/devkit/browser.js';
