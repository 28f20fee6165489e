// A followed run's report (markdown from the coordinator) reads on a terminal as `report`'s
// text table does: the table part is the text exporter's, cell for cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markdownAsText } from '../../cli/markdown-text.ts';

test('a markdown report becomes aligned text: columns padded, numbers right-aligned, no pipes, backticks or bold', () => {
  const markdown = [
    'Paired median speedup over native / CPU ratio for `taskpool-8-batched`.',
    '',
    '> **Note:** one note',
    '>',
    '> **Note:** two \\| notes',
    '',
    '| Kernel | Machine | `whole` | `pages` |',
    '| --- | --- | ---: | ---: |',
    '| aes-cbc-decrypt | m2pro | 5.04x / 0.79 | 15.01x / 0.80 |',
    '| sha256 | a\\|b | 4.98x / 0.80 | - |',
    '',
    '- Each cell: a `figure`.',
    '',
  ].join('\n');
  assert.equal(markdownAsText(markdown), [
    'Paired median speedup over native / CPU ratio for taskpool-8-batched.',
    '',
    'note: one note',
    'note: two | notes',
    '',
    'Kernel           Machine         whole          pages',
    '---------------  -------  ------------  -------------',
    'aes-cbc-decrypt  m2pro    5.04x / 0.79  15.01x / 0.80',
    'sha256           a|b      4.98x / 0.80              -',
    '',
    '- Each cell: a figure.',
    '',
  ].join('\n'));
});
