/**
 * The API document as one self-contained HTML page (`GET /docs`): no script, no font, no CDN
 * (the service may run where there is no internet). Operations by tag, then the schemas, each
 * `$ref` a link to the schema it names.
 */

type Obj = Record<string, any>;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Inline Markdown of the descriptions: `code` and **bold**; the text is escaped first. */
const inline = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>');

/** The few Markdown blocks the descriptions use: ## headings, tables, indented code, paragraphs. */
function markdown(text: string): string {
  return text.split(/\n{2,}/).map((block) => {
    if (block.startsWith('## ')) return `<h3>${inline(block.slice(3))}</h3>`;
    if (block.startsWith('    ')) return `<pre>${esc(block.replace(/^ {4}/gm, ''))}</pre>`;
    if (block.startsWith('|')) return table(block);
    return `<p>${inline(block)}</p>`;
  }).join('\n');
}

function table(block: string): string {
  const rows = block.split('\n').filter((r) => !/^\|[-| :]+\|$/.test(r)).map((r) => r.slice(1, -1).split('|').map((c) => inline(c.trim())));
  return `<table>${rows.map((r, i) => `<tr>${r.map((c) => (i ? `<td>${c}</td>` : `<th>${c}</th>`)).join('')}</tr>`).join('')}</table>`;
}

const refName = (ref: string) => ref.replace('#/components/schemas/', '').replace('#/components/responses/', '');

/** Pretty JSON with every `"$ref": "#/components/…/X"` a link to X. */
function schemaHtml(schema: unknown): string {
  return esc(JSON.stringify(schema, null, 2)).replace(/&quot;\$ref&quot;: &quot;#\/components\/(schemas|responses)\/([A-Za-z0-9_]+)&quot;/g,
    (_m, kind, name) => `&quot;$ref&quot;: <a href="#${kind === 'schemas' ? 'schema' : 'response'}-${name}">${name}</a>`);
}

function content(c: Obj | undefined): string {
  if (!c) return '';
  return Object.entries(c).map(([type, m]) => {
    const s = (m as Obj).schema;
    const body = s?.$ref ? `<a href="#schema-${refName(s.$ref)}">${refName(s.$ref)}</a>` : `<code>${esc(JSON.stringify(s))}</code>`;
    return ` <span class=t>${esc(type)}</span> ${body}`;
  }).join('');
}

function operationHtml(pathKey: string, method: string, op: Obj): string {
  const security = (op.security as Obj[] | undefined)?.map((r) => Object.keys(r).join(' + ') || 'none').join(' or ') || 'none';
  const params = (op.parameters as Obj[] | undefined ?? []).map((p) =>
    `<tr><td><code>${esc(p.name)}</code></td><td>${p.in}${p.required ? ', required' : ''}</td><td>${inline(p.description ?? '')} <code>${esc(JSON.stringify(p.schema))}</code></td></tr>`).join('');
  const all = Object.entries(op.responses as Obj);
  const errors = all.filter(([, r]) => r.$ref).map(([status, r]) => `<a href="#response-${refName(r.$ref)}">${status}</a>`);
  const responses = all.filter(([, r]) => !r.$ref).map(([status, r]) => `<li><b>${status}</b> ${inline(r.description)}${content(r.content)}</li>`)
    .concat(errors.length ? [`<li>Errors: ${errors.join(' ')}</li>`] : []).join('');
  return `<section class=op id="${esc(op.operationId)}">
<h4><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(pathKey)}</code> ${inline(op.summary ?? '')}</h4>
${op['x-undocumented'] ? '<p class=warn>Not documented.</p>' : ''}${op.description ? `<p>${inline(op.description)}</p>` : ''}
<p class=auth>Auth: ${esc(security)}</p>
${params ? `<table>${params}</table>` : ''}${op.requestBody ? `<p>Body:${content(op.requestBody.content)}</p>` : ''}
<ul>${responses}</ul>
</section>`;
}

export function renderPage(doc: Obj): string {
  const byTag = new Map<string, string[]>();
  for (const [p, methods] of Object.entries(doc.paths as Obj)) {
    for (const [m, op] of Object.entries(methods as Obj)) {
      const tag = (op as Obj).tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(p, m, op as Obj)]);
    }
  }
  const tags = (doc.tags as Obj[]).map((t) => t.name).filter((t) => byTag.has(t)).concat([...byTag.keys()].filter((t) => !(doc.tags as Obj[]).some((x) => x.name === t)));
  const webhooks = Object.entries(doc.webhooks ?? {}).map(([name, w]) => operationHtml(`(webhook) ${name}`, 'post', (w as Obj).post)).join('');
  const defs = (kind: string, all: Obj) => Object.entries(all).map(([n, s]) => `<h4 id="${kind}-${esc(n)}">${esc(n)}</h4><pre>${schemaHtml(s)}</pre>`).join('\n');
  return `<!doctype html>
<html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width,initial-scale=1">
<title>${esc(doc.info.title)} ${esc(doc.info.version)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f6f6f6;padding:.6em;overflow:auto}
.op{border-top:1px solid #ddd;padding:.3em 0}.m{display:inline-block;min-width:4.5em;font-weight:bold}
.get{color:#0a6}.post{color:#06c}.patch{color:#a60}.delete{color:#c22}.auth,.t{color:#666}.warn{color:#c22;font-weight:bold}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;vertical-align:top;text-align:left}
</style></head><body>
<h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>
<p>OpenAPI ${esc(doc.openapi)}: <a href="openapi.json">openapi.json</a>. ${tags.map((t) => `<a href="#tag-${esc(t)}">${esc(t)}</a>`).join(' · ')} · <a href="#schemas">Schemas</a></p>
${markdown(doc.info.description ?? '')}
${tags.map((t) => `<h2 id="tag-${esc(t)}">${esc(t)}</h2>\n${byTag.get(t)!.join('\n')}`).join('\n')}
<h2>Webhooks</h2>${webhooks}
<h2 id=schemas>Schemas</h2>${defs('schema', doc.components.schemas)}
<h2>Error answers</h2>${defs('response', doc.components.responses)}
</body></html>
`;
}
