// Building the pages' DOM. Text goes in as text nodes and attributes through setAttribute,
// never through innerHTML, so a name like `<img src=x onerror=alert(1)>` from an agent, a plan
// or a raw file shows as those characters and is never parsed as markup; and without the
// controls that would reorder the text around it (bidi.ts).
import { withoutBidiControls } from './bidi.ts';

export type Child = Node | string | number | null | undefined | false;
export type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : withoutBidiControls(String(value)));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(withoutBidiControls(String(child))) : child);
  }
}

/** Replace everything in `parent` with `children`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

/** A link to a dashboard page; path parts are encoded. */
export function pageLink(text: string, ...parts: string[]): HTMLAnchorElement {
  return h('a', { href: `/${parts.map(encodeURIComponent).join('/')}` }, text);
}

/** A wide table in a box that scrolls sideways, so the page itself is never wider than the screen. */
export function scrollBox(table: HTMLTableElement): HTMLDivElement {
  return h('div', { class: 'table-scroll' }, table);
}

/** The width inside `element`'s padding, for charts drawn to fit it. */
export function contentWidth(element: HTMLElement, fallback = 1200): number {
  const style = getComputedStyle(element);
  const width = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return width > 0 ? Math.floor(width) : fallback;
}
