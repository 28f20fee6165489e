// A report that arrives as markdown (the coordinator's report.md, sent at the end of a followed
// run) shown as `report` shows it on a terminal: tables aligned in columns with a dashed rule,
// numbers right-aligned where the markdown says so, no backticks, pipes or bold marks.

function cells(row: string): string[] {
  // Split on pipes that are not escaped (`\|` is a pipe inside a cell).
  return row.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|').replace(/`/g, ''));
}

function table(rows: readonly string[]): string[] {
  const [header, separator, ...body] = rows.map(cells);
  if (!header || !separator) return [...rows];
  const right = separator.map((s) => s.endsWith(':') && !s.startsWith(':'));
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string => widths.map((w, i) => (right[i] ? (r[i] ?? '').padStart(w) : (r[i] ?? '').padEnd(w))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
}

export function markdownAsText(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith('|')) {
      const rows: string[] = [];
      while (i < lines.length && (lines[i] as string).startsWith('|')) rows.push(lines[i++] as string);
      i--;
      out.push(...table(rows));
    } else if (line.trim() === '>') continue;
    else out.push(line.replace(/^> \*\*Note:\*\* /, 'note: ').replace(/^> /, '').replace(/\*\*/g, '').replace(/`/g, '').replace(/\\\|/g, '|'));
  }
  return out.join('\n');
}
