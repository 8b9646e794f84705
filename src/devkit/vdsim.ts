/** Where the vdsim simulator is: $VDSIM, else `../shared/tools/vdsim/vdsim.mjs` beside the checkout. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled to dist/src/devkit/: three levels up is the checkout.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const VDSIM = process.env.VDSIM ?? path.resolve(ROOT, '../shared/tools/vdsim/vdsim.mjs');
