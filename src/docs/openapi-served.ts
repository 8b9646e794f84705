/**
 * What `GET /openapi.json` and `GET /docs` answer: the document of the routes this server
 * registered, made once, on first request (every route is registered by then).
 */
import { type Route, openApiDocument } from './openapi.js';
import { renderPage } from './openapi-page.js';

export interface ServedDocs { json: Buffer; html: string }

export function servedDocs(routes: () => readonly Route[]): () => ServedDocs {
  let made: ServedDocs | undefined;
  return () => {
    if (!made) {
      const doc = openApiDocument(routes());
      made = { json: Buffer.from(JSON.stringify(doc)), html: renderPage(doc) };
    }
    return made;
  };
}
