// The dashboard's two server-made pages and the headers every response carries. The pages hold
// no data: the app shell loads /assets/dashboard.js, which fetches /api/* and builds the DOM
// with textContent only, so no name from an agent or a plan is ever parsed as HTML. The
// Content-Security-Policy allows scripts, styles and connections from this origin only: no
// inline script or style, no eval, no other site, no framing.
import type { ServerResponse } from 'node:http';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(res: ServerResponse, tls: boolean): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // The one-time login link carries a token in its query: no Referer may take it to another
  // site. (Not no-referrer: under it browsers send `Origin: null`, and the origin check of
  // POST /login and the live connection needs the real one.)
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  if (tls) res.setHeader('Strict-Transport-Security', 'max-age=31536000');
}

const head = (title: string): string =>
  `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n<link rel="icon" href="data:,">\n<link rel="stylesheet" href="/assets/dashboard.css">\n`;

/** The page every dashboard route serves; the script decides what to show from the path. */
export function appShell(): string {
  return `${head('benchfleet')}<script src="/assets/dashboard.js" defer></script>\n</head>\n<body>\n<div id="app"></div>\n</body>\n</html>\n`;
}

export type LoginProblem = 'wrong-token' | 'expired-link' | 'too-many' | null;

const PROBLEM_TEXT: Record<Exclude<LoginProblem, null>, string> = {
  'wrong-token': 'Wrong token. Give the control token the coordinator was started with.',
  'too-many': 'Too many failed logins from this address. Wait a minute, then log in with the control token.',
  'expired-link': 'This login link was used already or has expired. Log in with the control token, or restart the demo for a new link.',
};

export function loginPage(problem: LoginProblem): string {
  const message = problem === null ? '' : `<p class="login-error" role="alert">${PROBLEM_TEXT[problem]}</p>\n`;
  return `${head('benchfleet: log in')}</head>\n<body class="login">\n<main class="login-box">\n<h1>benchfleet</h1>\n${message}<form method="post" action="/login">\n<label for="token">Control token</label>\n<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>\n<button type="submit">Log in</button>\n</form>\n<p class="hint">The control token the coordinator was started with: the file named by its --control-token-file, else its --token-file or BENCHFLEET_TOKEN.</p>\n</main>\n</body>\n</html>\n`;
}
