/**
 * Generated parts of a Markdown document live between `<!-- NAME:begin -->` and
 * `<!-- NAME:end -->` (HTML comments: invisible when rendered), so a script can rewrite its part
 * and leave the prose around it alone.
 */

const begin = (name: string) => `<!-- ${name}:begin -->`;
const end = (name: string) => `<!-- ${name}:end -->`;

/** Where the part called `name` starts and ends in `text` (between the markers), or undefined. */
function find(text: string, name: string): { from: number; to: number } | undefined {
  const b = text.indexOf(begin(name));
  if (b < 0) return undefined;
  const e = text.indexOf(end(name), b);
  if (e < 0) throw new Error(`expected ${end(name)} after ${begin(name)}, found none`);
  return { from: b + begin(name).length, to: e };
}

/** The content between the markers, trimmed; undefined when the document has no such part. */
export function markedPart(text: string, name: string): string | undefined {
  const at = find(text, name);
  return at && text.slice(at.from, at.to).trim();
}

/** `text` with the part called `name` replaced by `content`; a missing part is appended, under `heading` when given. */
export function replaceMarkedPart(text: string, name: string, content: string, heading?: string): string {
  const body = `\n${content.trim()}\n`;
  const at = find(text, name);
  if (at) return text.slice(0, at.from) + body + text.slice(at.to);
  const lead = text.length === 0 || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  return `${text}${lead}${heading ? `${heading}\n\n` : ''}${begin(name)}${body}${end(name)}\n`;
}
