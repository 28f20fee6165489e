// The dashboard: a read-only web view of the coordinator on its own port (same TLS as the
// coordinator). Routes and auth are in docs/dashboard.md. Every page and API call needs a
// session (sessions.ts); pages are built in the browser from /api/* JSON (web/src), and the
// `/ui` socket.io namespace pushes changes to them. It reads the coordinator through
// DashboardSource only and never changes a run.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { posix } from 'node:path';
import { Server } from 'socket.io';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { DEFAULT_PAGE_MACHINES, MAX_ANSWER_BYTES, MAX_LISTED_RUNS, MAX_PAGE_MACHINES, MAX_RUN_ANSWER_BYTES, UI_NAMESPACE, type DashboardToUi } from './dashboard-views.ts';
import { AnswerCache } from './answer-cache.ts';
import { checkWebBundle, webAssets, type WebAssets } from './web-assets.ts';
import { CompareCache } from './compare-cache.ts';
import { historyApi } from './history-api.ts';
import { appShell, loginPage, securityHeaders, type LoginProblem } from './dashboard-pages.ts';
import { FINAL_RUN_STATES, type DashboardSource } from './dashboard-source.ts';
import { LoginLimiter } from '../network/login-limiter.ts';
import { RunViews, type PageRequest, type Viewed } from './run-views.ts';
import { decodeSegment } from '../network/request-path.ts';
import { clearedCookie, cookieValue, SESSION_COOKIE, sessionCookie, Sessions } from './sessions.ts';

const log = createLogger('dashboard');
/** Page routes: each serves the app shell, whose script shows the page for the path. */
const PAGES = [/^\/fleet$/, /^\/runs$/, /^\/runs\/[A-Za-z0-9_-]{1,64}$/, /^\/compare$/, /^\/campaigns$/, /^\/campaigns\/[A-Za-z0-9_-]{1,64}$/, /^\/history$/];
const MAX_LOGIN_BODY = 4096;
/** Live updates are sent at most this often per run (progress arrives per sample). */
const PUSH_INTERVAL_MS = 250;
export const LIVE_PATH = '/live/';
/** The finalized runs' answers kept (answer-cache.ts): a few Run pages of a thousand machines, or many small ones. */
const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

export interface DashboardOptions {
  host: string;
  port: number;
  /** Whether a presented token is the control token. */
  checkToken: (presented: unknown) => boolean;
  tls?: { cert: Buffer; key: Buffer };
  /** The built bundle's folder; web/dist unless a test gives another. */
  webDist?: string;
  /** Every JSON answer's hard cap, bytes (default MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
  /** What a Run page answer is kept under, bytes (default MAX_RUN_ANSWER_BYTES). */
  maxRunAnswerBytes?: number;
}

type Json = Record<string, unknown> | unknown[];

/** `?offset=&limit=&arm=` of a page of machines, or what is wrong with them. */
function pageRequest(url: URL): PageRequest | string {
  const number = (name: string, fallback: number, min: number, max: number): number | string => {
    const text = url.searchParams.get(name);
    if (text === null || text === '') return fallback;
    const value = Number(text);
    return /^\d+$/.test(text) && value >= min && value <= max ? value : `${name} must be a whole number from ${min} to ${max}, not "${text}"`;
  };
  const offset = number('offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = number('limit', DEFAULT_PAGE_MACHINES, 1, MAX_PAGE_MACHINES);
  if (typeof offset === 'string') return offset;
  if (typeof limit === 'string') return limit;
  const arm = url.searchParams.get('arm');
  return { offset, limit, ...(arm === null || arm === '' ? {} : { arm }) };
}

export class Dashboard {
  private readonly source: DashboardSource;
  private readonly options: DashboardOptions;
  private readonly sessions = new Sessions();
  private readonly limiter = new LoginLimiter();
  private readonly views: RunViews;
  private readonly compares: CompareCache;
  private readonly answers = new AnswerCache(ANSWER_CACHE_BYTES);
  private readonly assets: WebAssets;
  private http: HttpServer | null = null;
  private io: Server | null = null;
  private stopListening: (() => void) | null = null;
  private readonly pending = new Set<string>();
  private pendingFleet = false;
  private pushTimer: NodeJS.Timeout | null = null;
  private preparing: Promise<void> = Promise.resolve();

  constructor(source: DashboardSource, options: DashboardOptions) {
    this.source = source;
    this.options = options;
    this.views = new RunViews(source);
    this.compares = new CompareCache(source);
    this.assets = webAssets(options.webDist);
  }

  /** Listen; returns the dashboard's URL. */
  async start(): Promise<string> {
    await checkWebBundle(this.assets);
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((error: unknown) => {
        // A request the client got wrong (a malformed escape in its path) is its mistake, not ours: no error in the log.
        if (error instanceof BenchfleetError && error.code === 'PROTOCOL' && !res.headersSent) return this.sendJson(res, 400, { error: error.message });
        log.error(`${req.method ?? '?'} ${req.url ?? '?'}: ${errorMessage(error)}`);
        if (!res.headersSent) this.sendJson(res, 500, { error: 'internal error; see the coordinator log' });
        else res.destroy();
      });
    };
    const tls = this.options.tls;
    const http = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler) : createHttpServer(handler);
    this.http = http;
    const io = new Server(http, {
      path: LIVE_PATH,
      serveClient: false,
      cors: { origin: false },
      // Checked on every transport request: a session cookie, and no page of another origin.
      allowRequest: (req, done) => done(null, this.sessionOf(req) && this.sameOrigin(req)),
    });
    this.io = io;
    const ui = (io as unknown as Server<Record<string, never>, DashboardToUi>).of(UI_NAMESPACE);
    ui.on('connection', (socket) => {
      // Read-only: the namespace listens to nothing a page sends.
      void this.views.fleet().then((view) => socket.emit('fleet', view), (error: unknown) => log.warn(`fleet view: ${errorMessage(error)}`));
    });
    this.stopListening = this.source.onChange((change) => {
      if (change.kind === 'campaign') {
        // Few and far between (a run's start or end): sent as they come.
        const campaign = this.source.campaign?.(change.campaignId) ?? null;
        if (campaign) ui.emit('campaign', campaign);
        return;
      }
      if (change.kind === 'run') {
        this.pending.add(change.runId);
        // Only a finished run has summaries to read ahead; a running one changes a few times a
        // second, and asking for a copy of its thousand machines each time is not free.
        const state = this.source.runState(change.runId);
        if (state !== null && FINAL_RUN_STATES.has(state)) this.prepare([change.runId]);
      }
      this.pendingFleet = true;
      this.pushTimer ??= setTimeout(() => this.push(), PUSH_INTERVAL_MS);
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.options.port, this.options.host, () => resolve());
    });
    this.prepare(this.source.runs().map((r) => r.runId));
    return this.url;
  }

  /**
   * Read finalized runs' summaries and verify their manifests in the background, one run at a
   * time, so their pages are quick the first time; a run not finalized yet is skipped.
   */
  private prepare(runIds: readonly string[]): void {
    this.preparing = this.preparing.then(async () => {
      for (const runId of runIds) {
        await this.views.prepare(runId).catch((error: unknown) => log.warn(`run ${runId}: ${errorMessage(error)}`));
      }
    });
  }

  /** Resolves when the runs known so far are prepared (benchmarks wait for it). */
  prepared(): Promise<void> {
    return this.preparing;
  }

  get port(): number {
    return (this.http?.address() as AddressInfo | null)?.port ?? 0;
  }

  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `${this.options.tls ? 'https' : 'http'}://${host}:${this.port}`;
  }

  /** A link that logs a browser in once, within the hour (what `npm start` prints). */
  oneTimeLoginUrl(next = '/fleet'): string {
    const params = new URLSearchParams({ token: this.sessions.createOneTime(), next });
    return `${this.url}/login/once?${params.toString()}`;
  }

  async close(): Promise<void> {
    this.stopListening?.();
    if (this.pushTimer) clearTimeout(this.pushTimer);
    await this.views.close();
    await new Promise<void>((resolve) => {
      if (!this.io) return resolve();
      void this.io.close(() => resolve());
    });
  }

  private push(): void {
    this.pushTimer = null;
    const ui = this.io?.of(UI_NAMESPACE);
    if (!ui) return;
    const runIds = [...this.pending];
    this.pending.clear();
    // No page is open: nobody to build views for (a page that opens gets the fleet view at once
    // and the rest from the API, and live changes from then on).
    if (ui.sockets.size === 0) {
      this.pendingFleet = false;
      return;
    }
    for (const runId of runIds) {
      const run = this.source.run(runId);
      if (run) void this.views.item(run).then((item) => ui.emit('run', item), (error: unknown) => log.warn(`run ${runId}: ${errorMessage(error)}`));
    }
    if (this.pendingFleet) {
      this.pendingFleet = false;
      void this.views.fleet().then((view) => ui.emit('fleet', view), (error: unknown) => log.warn(`fleet view: ${errorMessage(error)}`));
    }
  }

  private sessionOf(req: IncomingMessage): boolean {
    return this.sessions.valid(cookieValue(req.headers.cookie, SESSION_COOKIE));
  }

  /** Requests a browser sends from another site's page carry that page's Origin; refuse them. */
  private sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    return origin === `${this.options.tls ? 'https' : 'http'}://${req.headers.host ?? ''}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res, this.options.tls !== undefined);
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';

    if (method === 'GET' && path === '/assets/dashboard.js') return this.sendFile(res, this.assets.dashboardJs, 'text/javascript; charset=utf-8');
    if (method === 'GET' && path === '/assets/dashboard.css') return this.sendFile(res, this.assets.css, 'text/css; charset=utf-8');
    if (path === '/login' && method === 'GET') return this.sendHtml(res, 200, loginPage(null));
    if (path === '/login' && method === 'POST') return this.login(req, res);
    if (path === '/login/once' && method === 'GET') return this.loginOnce(url, res);
    if (path === '/logout' && method === 'POST') {
      if (!this.sameOrigin(req)) return this.sendJson(res, 403, { error: 'cross-origin request refused' });
      this.sessions.end(cookieValue(req.headers.cookie, SESSION_COOKIE));
      res.setHeader('Set-Cookie', clearedCookie(this.options.tls !== undefined));
      return this.redirect(res, '/login');
    }

    const isApi = path.startsWith('/api/');
    if (!this.sessionOf(req)) {
      if (isApi) return this.sendJson(res, 401, { error: 'log in first: POST /login with the control token' });
      return this.redirect(res, '/login');
    }
    if (method !== 'GET') return this.sendJson(res, 405, { error: 'the dashboard is read-only' });
    if (path === '/') return this.redirect(res, '/fleet');
    if (PAGES.some((p) => p.test(path))) return this.sendHtml(res, 200, appShell());
    if (isApi) return this.api(path, url, res);
    // A browser's address (an odd run id, a typo) gets the page's own error view, not JSON.
    return this.sendHtml(res, 404, appShell());
  }

  private async api(path: string, url: URL, res: ServerResponse): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    if (path === '/api/fleet') return this.sendJson(res, 200, await this.views.fleet());
    if (path === '/api/runs') return this.sendJson(res, 200, await this.views.list(MAX_LISTED_RUNS));
    if (path === '/api/campaigns') return this.sendJson(res, 200, { campaigns: this.source.campaigns?.() ?? [] });
    const campaign = /^\/api\/campaigns\/([^/]+)$/.exec(path);
    if (campaign) {
      const found = this.source.campaign?.(decodeURIComponent(campaign[1] as string)) ?? null;
      if (found === null) return this.sendJson(res, 404, { error: 'no such campaign' });
      return this.sendJson(res, 200, found);
    }
    if (path === '/api/compare') {
      const runs = (url.searchParams.get('runs') ?? '').split(',').filter((r) => r !== '');
      try {
        return this.sendJson(res, 200, await this.compares.compare(runs));
      } catch (error) {
        const status = error instanceof BenchfleetError ? (error.code === 'UNKNOWN_RUN' ? 404 : 400) : 500;
        return this.sendJson(res, status, { error: errorMessage(error) });
      }
    }
    const history = await historyApi(this.source, path, url);
    if (history !== null) return this.sendJson(res, history.status, history.body);
    const file = /^\/api\/runs\/([^/]+)\/files\/(.+)$/.exec(path);
    if (file) {
      const target = await this.views.downloadPath(decodeSegment(file[1] as string), decodeSegment(file[2] as string));
      if (target === null) return this.sendJson(res, 404, { error: 'no such file in this run (downloads are the files its manifest lists)' });
      res.setHeader('Content-Disposition', `attachment; filename="${posix.basename(target).replace(/[^A-Za-z0-9._-]/g, '_')}"`);
      return this.sendFile(res, target, 'application/octet-stream');
    }
    const machines = /^\/api\/runs\/([^/]+)\/machines$/.exec(path);
    if (machines) {
      const runId = decodeSegment(machines[1] as string);
      const request = pageRequest(url);
      if (typeof request === 'string') return this.sendJson(res, 400, { error: request });
      return this.runAnswer(res, `machines\u0000${runId}\u0000${request.arm ?? ''}\u0000${request.offset}\u0000${request.limit}`, request.limit, (limit) => this.views.page(runId, { ...request, limit }));
    }
    const run = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (run) {
      const runId = decodeSegment(run[1] as string);
      return this.runAnswer(res, `run\u0000${runId}`, DEFAULT_PAGE_MACHINES, (limit) => this.views.view(runId, { offset: 0, limit }));
    }
    return this.sendJson(res, 404, { error: `no API ${path}` });
  }

  /**
   * A Run page answer: built with `limit` machines a page, and again with half as many while it
   * is over MAX_RUN_ANSWER_BYTES (the page's `limit` says how many it holds); kept when final.
   */
  private async runAnswer(res: ServerResponse, key: string, limit: number, build: (limit: number) => Promise<Viewed<object> | null>): Promise<void> {
    const kept = this.answers.get(key);
    if (kept !== undefined) return this.sendJsonText(res, 200, kept);
    for (let size = limit; ; size = Math.ceil(size / 2)) {
      let built: Viewed<object> | null;
      try {
        built = await build(size);
      } catch (error) {
        if (error instanceof BenchfleetError && error.code === 'USAGE') return this.sendJson(res, 400, { error: error.message });
        throw error;
      }
      if (built === null) return this.sendJson(res, 404, { error: 'no such run' });
      const text = JSON.stringify(built.view);
      if (Buffer.byteLength(text) > (this.options.maxRunAnswerBytes ?? MAX_RUN_ANSWER_BYTES) && size > 1) continue;
      if (built.final) this.answers.set(key, text);
      return this.sendJsonText(res, 200, text);
    }
  }

  private async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.sameOrigin(req)) return this.sendHtml(res, 403, loginPage('wrong-token'));
    let body = '';
    for await (const chunk of req) {
      body += String(chunk);
      if (body.length > MAX_LOGIN_BODY) return this.sendHtml(res, 413, loginPage('wrong-token'));
    }
    const address = req.socket.remoteAddress ?? 'unknown';
    if (this.limiter.blocked(address)) {
      log.warn(`refused a dashboard login from ${address}: too many failed logins`);
      return this.sendHtml(res, 429, loginPage('too-many'));
    }
    const token = new URLSearchParams(body).get('token');
    // An empty token is never right, whatever the checker was given.
    if (token === null || token === '' || !this.options.checkToken(token)) {
      this.limiter.failed(address);
      log.warn(`refused a dashboard login with a wrong token from ${address}`);
      return this.sendHtml(res, 401, loginPage('wrong-token'));
    }
    this.startSession(res, '/fleet');
  }

  private loginOnce(url: URL, res: ServerResponse): void {
    const token = url.searchParams.get('token') ?? '';
    if (!this.sessions.redeemOneTime(token)) return this.sendHtml(res, 401, loginPage('expired-link' satisfies LoginProblem));
    const next = url.searchParams.get('next') ?? '/fleet';
    // Only a page of this dashboard, never another site (`//evil` or a full URL).
    this.startSession(res, PAGES.some((p) => p.test(next)) ? next : '/fleet');
  }

  private startSession(res: ServerResponse, next: string): void {
    res.setHeader('Set-Cookie', sessionCookie(this.sessions.create(), this.options.tls !== undefined));
    this.redirect(res, next);
  }

  private redirect(res: ServerResponse, location: string): void {
    res.writeHead(303, { Location: location, 'Content-Length': 0 });
    res.end();
  }

  private sendHtml(res: ServerResponse, status: number, html: string): void {
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(html) });
    res.end(html);
  }

  private sendJson(res: ServerResponse, status: number, value: Json | object): void {
    this.sendJsonText(res, status, JSON.stringify(value));
  }

  /** Every JSON answer passes here: one over MAX_ANSWER_BYTES is refused, never sent. */
  private sendJsonText(res: ServerResponse, status: number, text: string): void {
    const bytes = Buffer.byteLength(text);
    const cap = this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    if (bytes > cap) {
      log.warn(`refused to send a ${bytes}-byte answer (over the dashboard's cap of ${cap} bytes)`);
      text = JSON.stringify({ error: `the answer would be ${bytes} bytes, over the dashboard's cap of ${cap}; ask for less (docs/dashboard.md, API)`, code: 'ANSWER_TOO_LARGE' });
      status = 500;
    }
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private async sendFile(res: ServerResponse, path: string, type: string): Promise<void> {
    const size = (await stat(path)).size;
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': size });
    await new Promise<void>((resolve, reject) => {
      createReadStream(path).on('error', reject).pipe(res).on('finish', resolve).on('error', reject);
    });
  }
}

