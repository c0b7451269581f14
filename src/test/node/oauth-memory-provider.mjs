// What the mcp-oauth-*.mjs scripts share: an in-memory OAuthClientProvider for the official MCP TypeScript SDK
// client (what a desktop MCP client keeps in its settings), the browser's hops from an authorization URL to the
// client's redirect URI, and the first sign-in a connection without a token leads to.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

export const REDIRECT = 'http://127.0.0.1:9/node-callback';

/** Keeps every token set it was given (`saved`), every authorization URL it was sent to (`redirects`), its registrations. */
export class MemoryProvider {
  constructor(clientName) {
    this.clientName = clientName;
    this.saved = [];
    this.redirects = [];
    this.registrations = 0;
  }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return { client_name: this.clientName, redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() { return 'node-state'; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; this.registrations++; }
  tokens() { return this.saved.at(-1); }
  saveTokens(tokens) { this.saved.push(tokens); }
  /** The SDK drops tokens the server refused: an undefined entry, so that `saved.filter(Boolean)` are the real ones. */
  invalidateCredentials(what) { if (what === 'tokens' || what === 'all') this.saved.push(undefined); }
  redirectToAuthorization(url) { this.redirects.push(url); }
  /** The authorization URL the SDK asked for last. */
  get authorizationUrl() { return this.redirects.at(-1); }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

/**
 * Follows redirects as a browser would, and approves on the server's consent page as a user clicking Approve (its
 * form posted with the cookie the page set), until a redirect goes to the client's redirect URI: its query.
 */
export async function browse(url) {
  let next = url.toString();
  for (let hop = 0; hop < 8; hop++) {
    let r = await fetch(next, { redirect: 'manual' });
    if (r.status === 200) r = await approve(next, r);
    const location = r.headers.get('location');
    if ((r.status !== 302 && r.status !== 303) || !location) throw new Error(`hop ${hop}: HTTP ${r.status} ${await r.text()}`);
    if (location.startsWith(REDIRECT)) return new URL(location).searchParams;
    next = new URL(location, next).toString();
  }
  throw new Error('no redirect to the client after 8 hops');
}

/** Clicks Approve on the consent page `page` (an answer from `at`): posts its form with the binding cookie it set. */
async function approve(at, page) {
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html);
  const request = /name="request" value="([^"]+)"/.exec(html);
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('agt_consent='));
  if (!action || !request || !cookie) throw new Error(`no consent form at ${at}: ${html}`);
  const target = new URL(action[1], at);
  return fetch(target, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded',
    cookie: cookie.split(';')[0], origin: target.origin },
    body: new URLSearchParams({ request: request[1], decision: 'approve' }).toString() });
}

/**
 * A first connection to SERVER/mcp, refused for want of a token, sends the provider to sign in; USER (an emulated
 * Google user, by login_hint) consents, the state is checked and the code traded. Answers a client connected with it.
 */
export async function signedIn(server, provider, user) {
  const first = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider });
  try {
    await new Client({ name: provider.clientName, version: '1.0.0' }).connect(first);
    throw new Error('connected without signing in');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  provider.authorizationUrl.searchParams.set('login_hint', user);
  const callback = await browse(provider.authorizationUrl);
  if (callback.get('state') !== 'node-state') throw new Error(`state came back as ${callback.get('state')}`);
  await first.finishAuth(callback);
  const client = new Client({ name: provider.clientName, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider }));
  return client;
}
