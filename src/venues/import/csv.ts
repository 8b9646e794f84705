/**
 * One CSV record per line (RFC 4180 quoting, no embedded newlines: none of our sources have
 * them, and a line-oriented reader keeps line numbers exact for bad-row reports).
 */
export function splitCsvLine(line: string, sep = ','): string[] {
  if (line.indexOf('"') < 0) return line.split(sep);
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === sep) { out.push(cur); cur = ''; }
    else cur += c;
  }
  out.push(cur);
  return out;
}
