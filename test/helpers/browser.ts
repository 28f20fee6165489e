// The system Chromium driven by playwright-core, for tests of the dashboard's real pages. One
// browser per test file; each test gets its own context (cookies) and collects every console
// error, page error and CSP violation of its pages, so a test can assert there were none.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env['BENCHFLEET_CHROMIUM'] ?? '/usr/bin/chromium';

/** Playwright starts every launch on a new, empty profile folder of its own (it refuses --user-data-dir in launch()). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface WatchedPage {
  page: Page;
  /** Console errors, uncaught page errors and CSP violations, in order. */
  errors: string[];
}

export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return { page, errors };
}
