// Observable Plot figures that keep to the pages' Content-Security-Policy. Plot puts a <style>
// element into every SVG it makes; under `style-src 'self'` the browser would refuse it (a
// console error) the moment the SVG joined the page. Plot builds the SVG detached, so the
// element is taken out before that, and its rules (display, sizing, white-space) are in
// dashboard.css under Plot's class name.

export function cspSafe<T extends Element>(figure: T): T {
  for (const style of figure.querySelectorAll('style')) style.remove();
  return figure;
}
