/**
 * Build step (`npm run build`): writes dist/openapi.json and dist/openapi.html from every
 * described operation, for readers and code generators without a running server. The server
 * serves the same document built from the routes it registers; test/e2e/openapi.test.ts checks
 * that the two are one.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { OPERATIONS, openApiDocument } from './openapi.js';
import { renderPage } from './openapi-page.js';

const routes = Object.keys(OPERATIONS).map((key) => {
  const [method, pattern] = key.split(' ');
  return { method, pattern };
});
const doc = openApiDocument(routes);
writeFileSync(path.join(PACKAGE_ROOT, 'dist/openapi.json'), JSON.stringify(doc, null, 2) + '\n');
writeFileSync(path.join(PACKAGE_ROOT, 'dist/openapi.html'), renderPage(doc));
process.stdout.write(`dwell: wrote dist/openapi.json and dist/openapi.html (${routes.length} operations)\n`);
