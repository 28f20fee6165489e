// A report that arrives as markdown (the coordinator's report.md, sent at the end of a followed
// run) shown as `report` shows it on a terminal: tables aligned in columns with a dashed rule,
// numbers right-aligned where the markdown says so, no backticks, pipes, bold marks or heading
// marks, and everything within the terminal's width (paragraphs and list items wrapped between
// words, a table too wide keeping the columns that fit).
import { fitTable, wrapText } from '../analysis/report/text-layout.ts';

function cells(row: string): string[] {
  // Split on pipes that are not escaped (`\|` is a pipe inside a cell).
  return row.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|').replace(/`/g, ''));
}

function table(rows: readonly string[], columns: number): string[] {
  const [header, separator, ...body] = rows.map(cells);
  if (!header || !separator) return [...rows];
  const right = new Set(separator.flatMap((c, i) => (c.endsWith(':') && !c.startsWith(':') ? [i] : [])));
  return fitTable(header, body, columns, '', right);
}

/** A line of text (not a table) without its markdown marks, wrapped to `columns`. */
function prose(line: string, columns: number): string[] {
  const text = line.replace(/^#{1,6} /, '').replace(/^> \*\*Note:\*\* /, 'note: ').replace(/^> /, '').replace(/\*\*/g, '').replace(/`/g, '').replace(/\\\|/g, '|');
  const bullet = /^(\s*)- /.exec(text);
  const indent = bullet ? `${bullet[1] ?? ''}  ` : text.startsWith('note: ') ? '  ' : '';
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  return text === '' ? [''] : wrapText(text.slice(lead.length), columns, indent, lead);
}

/** `markdown` as text for a terminal of `columns` (default: lines as long as they come). */
export function markdownAsText(markdown: string, columns = Number.POSITIVE_INFINITY): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith('|')) {
      const rows: string[] = [];
      while (i < lines.length && (lines[i] as string).startsWith('|')) rows.push(lines[i++] as string);
      i--;
      out.push(...table(rows, columns));
    } else if (line.trim() === '>') continue;
    else out.push(...prose(line, columns));
  }
  return out.join('\n');
}
