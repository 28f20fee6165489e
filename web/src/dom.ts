// Building the pages' DOM. Text goes in as text nodes and attributes through setAttribute,
// never through innerHTML, so a name like `<img src=x onerror=alert(1)>` from an agent, a plan
// or a raw file shows as those characters and is never parsed as markup.

export type Child = Node | string | number | null | undefined | false;
export type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
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
