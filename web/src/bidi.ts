// Names from plans, agents and raw files are shown as written, but never with the Unicode
// controls that reorder text around them (U+202A-U+202E embeddings and overrides, U+2066-U+2069
// isolates, U+200E/U+200F/U+061C marks): a plan named with a right-to-left override once showed
// the run id after it reversed in the HTML report's title. They are removed wherever text is
// put on a page, and the page's user strings sit in <bdi> or `unicode-bidi: isolate` besides.

 
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
