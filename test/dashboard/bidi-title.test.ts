// A plan named with Unicode direction controls (a right-to-left override) once reversed the run
// id after it in the HTML report's title: the title, and any text the pages put on screen,
// keep the name's characters but lose those controls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutBidiControls } from '../../web/src/bidi.ts';
import { renderHtmlReport } from '../../web/report-html.ts';

const RLO = '\u202e';

test('the HTML report\'s title keeps a plan name\'s text but not its direction controls', async () => {
  const title = `study ${RLO}gnp.exe\u2066 (20261201-101500-ab12cd)`;
  const html = await renderHtmlReport(title, []);
  assert.match(html, /<title>study gnp\.exe \(20261201-101500-ab12cd\)<\/title>/);
  assert.equal(/[\u202a-\u202e\u2066-\u2069]/.test(html.slice(0, html.indexOf('<style>'))), false);
});

test('every direction control is removed, and nothing else', () => {
  assert.equal(withoutBidiControls(`a\u061cb\u200ec\u200fd\u202ae\u202bf\u202cg\u202dh${RLO}i\u2066j\u2067k\u2068l\u2069m`), 'abcdefghijklm');
  assert.equal(withoutBidiControls('ryzen ملف 東京 <img>'), 'ryzen ملف 東京 <img>');
});
