/**
 * Test support: the links of a Markdown document and the anchors its headings make, as GitHub
 * renders them, so a test can say which links of README.md and docs/ lead nowhere.
 */

export interface MarkdownLink { line: number; target: string }

/** The text with fenced code blocks blanked (kept as empty lines, so line numbers stay true). */
function withoutFences(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** Every inline link and image target outside code (`[text](target)`, `![alt](target "title")`). */
export function linksOf(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  withoutFences(markdown).forEach((text, i) => {
    const prose = text.replace(/`[^`]*`/g, '``');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: m[1] });
  });
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text stays, its target goes
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a document's headings make (a repeated one gets -1, -2, … as on GitHub), and explicit `id`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  }
  return anchors;
}
