import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root, found by walking up from this file: the same code runs from src/ (tsx,
 * editors) and from dist/src/ (tsc output), so a fixed '../..' would be wrong for one of them.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

export const dataPath = (...parts: string[]): string => join(packageRoot(), 'data', ...parts);
