/**
 * Test support: Debian's Chromium driven by playwright-core, headless, with a fresh profile and
 * nothing reaching the network on its own (the machine's network is closed). WebGL works
 * headless with these flags: Chromium falls back to SwiftShader through ANGLE by itself.
 */
import fs from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { tempDir } from './temp-dir.js';

export const CHROMIUM = process.env.DWELL_TEST_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launchBrowser(): Promise<BrowserContext> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does), or set DWELL_TEST_CHROMIUM`);
  return chromium.launchPersistentContext(tempDir('dwell-chromium-'), {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1,
  });
}
