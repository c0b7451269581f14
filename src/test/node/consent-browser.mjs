// The server's consent page in a real browser (Debian's Chromium, headless, driven by playwright-core), for
// ConsentPageBrowserTest. Usage: node consent-browser.mjs SERVER USER OUT_DIR. Prints one JSON object:
// - attack: issue 43's confused deputy. An attacker registers "Totally Legit Assistant" with
//   https://attacker.example/steal and sends the victim an authorize link with its own PKCE challenge. The victim's
//   browser opens it: what the page shows (its text, the answer's headers, a screenshot OUT_DIR/consent-page.png),
//   every request the browser sent to attacker.example before any answer (none may), and where Deny sends it.
// - signIn: the MCP TypeScript SDK's client with an OAuth provider whose redirectToAuthorization opens the URL in
//   Chromium and clicks Approve; the browser goes on through the emulator's Google consent and the server's callback
//   to the client's loopback redirect URI (a real listener here), the client finishes the sign-in and lists emails
//   through /mcp. A screenshot of that consent page: OUT_DIR/consent-sign-in.png.
import { chromium } from 'playwright-core';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [server, user, out] = process.argv.slice(2);
// How Chromium is started on these machines: no sandbox as root, and none of its own network traffic (refused here)
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];
const ATTACKER = 'https://attacker.example/steal';

/** A headless Chromium with a new, empty profile (user data dir). */
async function browser() {
  const profile = await mkdtemp(join(tmpdir(), 'agent-tools-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.AGENT_TOOLS_CHROMIUM || '/usr/bin/chromium', headless: true, args: ARGS,
    viewport: { width: 900, height: 760 },
  });
  return { context, close: async () => { await context.close(); await rm(profile, { recursive: true, force: true }); } };
}

async function attack() {
  const registered = await fetch(`${server}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Totally Legit Assistant', redirect_uris: [ATTACKER] }) });
  if (registered.status !== 201) throw new Error(`registration: HTTP ${registered.status} ${await registered.text()}`);
  const { client_id: clientId } = await registered.json();
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const link = `${server}/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(ATTACKER)}`
    + `&code_challenge=${challenge}&code_challenge_method=S256&state=attacker&login_hint=${encodeURIComponent(user)}`;
  const { context, close } = await browser();
  try {
    // attacker.example is on no network here: the browser's requests to it are seen (and fail to resolve)
    const reached = [];
    let denied;
    const deniedSent = new Promise((resolve) => { denied = resolve; });
    context.on('request', (r) => {
      if (new URL(r.url()).hostname === 'attacker.example') { reached.push(r.url()); denied(r.url()); }
    });
    const page = await context.newPage();
    const answer = await page.goto(link);
    await page.screenshot({ path: join(out, 'consent-page.png'), fullPage: true });
    const shown = {
      url: page.url(), status: answer.status(), headers: await answer.allHeaders(), title: await page.title(),
      text: await page.locator('body').innerText(),
      buttons: await page.getByRole('button').allInnerTexts(),
    };
    // another site framing the page (clickjacking): frame-ancestors 'none' leaves the frame without our page
    const framer = await context.newPage();
    await framer.setContent(`<iframe src="${link}" width="600" height="400"></iframe>`);
    await framer.waitForTimeout(1500);
    const framed = framer.frames().find((f) => f !== framer.mainFrame());
    try {
      shown.framedText = await framed.locator('body').innerText({ timeout: 2000 });
    } catch (e) {
      shown.framedText = `(unreadable: ${e.message.split('\n')[0]})`;
    }
    shown.framedUrl = framed.url();
    await framer.close();
    await page.waitForTimeout(500); // nothing on the page goes anywhere by itself
    const beforeAnswer = [...reached];
    await page.getByRole('button', { name: 'Deny' }).click({ noWaitAfter: true });
    const afterDeny = await Promise.race([deniedSent,
      new Promise((_, reject) => setTimeout(() => reject(new Error('Deny sent the browser nowhere within 20 s')), 20_000))]);
    return { ...shown, reachedBeforeAnswer: beforeAnswer, afterDeny };
  } finally {
    await close();
  }
}

async function signIn() {
  let received;
  const callback = new Promise((resolve) => { received = resolve; });
  const listener = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/callback') { res.writeHead(404).end(); return; }
    received(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Signed in; you may close this window.</p>');
  });
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const redirect = `http://127.0.0.1:${listener.address().port}/callback`;
  const { context, close } = await browser();
  const seen = {};
  const provider = {
    saved: [],
    get redirectUrl() { return redirect; },
    get clientMetadata() {
      return { client_name: 'Browser Test Client', redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'], token_endpoint_auth_method: 'none' };
    },
    state() { return 'browser-state'; },
    clientInformation() { return this.client; },
    saveClientInformation(info) { this.client = info; },
    tokens() { return this.saved.at(-1); },
    saveTokens(tokens) { this.saved.push(tokens); },
    saveCodeVerifier(verifier) { this.verifier = verifier; },
    codeVerifier() { return this.verifier; },
    /** The user's browser: opens the URL, reads the consent page, clicks Approve. */
    async redirectToAuthorization(url) {
      url.searchParams.set('login_hint', user); // the emulator's Google signs in the user login_hint names
      const page = await context.newPage();
      await page.goto(url.toString());
      seen.consentText = await page.locator('body').innerText();
      await page.screenshot({ path: join(out, 'consent-sign-in.png'), fullPage: true });
      await page.getByRole('button', { name: 'Approve' }).click();
      try {
        await page.waitForURL((u) => u.toString().startsWith(redirect), { timeout: 30_000 });
      } catch (e) {
        throw new Error(`after Approve the browser is at ${page.url()}: ${await page.content()}`);
      }
    },
  };
  try {
    const first = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider });
    try {
      await new Client({ name: 'browser-test', version: '1.0.0' }).connect(first);
      throw new Error('connected without signing in');
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) throw e;
    }
    const params = await Promise.race([callback,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no redirect to the client within 30 s')), 30_000))]);
    if (params.get('state') !== 'browser-state') throw new Error(`state came back as ${params.get('state')}`);
    if (!params.get('code')) throw new Error(`no code: ${params}`);
    await first.finishAuth(params);
    const client = new Client({ name: 'browser-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider }));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const listed = await client.callTool({ name: 'list_emails', arguments: { max_results: 5 } });
    if (listed.isError) throw new Error(`list_emails: ${JSON.stringify(listed)}`);
    const emails = JSON.parse(listed.content[0].text).emails.map((e) => e.id);
    await client.close();
    return { ...seen, tools, emails, iss: params.get('iss') };
  } finally {
    await close();
    listener.close();
  }
}

const result = { attack: await attack(), signIn: await signIn() };
console.log(JSON.stringify(result));
