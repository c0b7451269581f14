// The official MCP TypeScript SDK client signing users in to `agent-tools server` by its own OAuth support (the
// authProvider of StreamableHTTPClientTransport), as McpAuthorizationTest starts it: discovery from the 401, dynamic
// registration, the authorization request with PKCE and resource, the browser's hops (the server, the emulator's
// Google consent, the server's callback) followed here by fetch, the code traded, tools/call, and, once the server's
// short-lived access token has expired, the SDK's own refresh.
//
//   node mcp-oauth-check.mjs SERVER_URL USER... > results.json
//
// Prints {"<user>": {"ids": [...], "idsAfterRefresh": [...], "refreshed": bool, "registrations": n}}.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const [server, ...users] = process.argv.slice(2);
const REDIRECT = 'http://127.0.0.1:9/node-callback';

/** An in-memory OAuthClientProvider: what a desktop MCP client keeps in its settings. */
class MemoryProvider {
  constructor() {
    this.saved = [];
    this.registrations = 0;
  }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return { client_name: 'mcp-oauth-check', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() { return 'node-state'; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; this.registrations++; }
  tokens() { return this.saved.at(-1); }
  saveTokens(tokens) { this.saved.push(tokens); }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

/** Follows redirects as a browser would, until one goes to the client's redirect URI: its query. */
async function browse(url) {
  let next = url.toString();
  for (let hop = 0; hop < 6; hop++) {
    const r = await fetch(next, { redirect: 'manual' });
    const location = r.headers.get('location');
    if (r.status !== 302 || !location) throw new Error(`hop ${hop}: HTTP ${r.status} ${await r.text()}`);
    if (location.startsWith(REDIRECT)) return new URL(location).searchParams;
    next = new URL(location, next).toString();
  }
  throw new Error('no redirect to the client after 6 hops');
}

async function connected(provider) {
  const client = new Client({ name: 'mcp-oauth-check', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider }));
  return client;
}

async function ids(client) {
  const result = await client.callTool({ name: 'list_emails', arguments: { max_results: 5 } });
  if (result.isError) throw new Error(`list_emails: ${result.content[0].text}`);
  return JSON.parse(result.content[0].text).emails.map((e) => e.id);
}

const results = {};
for (const user of users) {
  const provider = new MemoryProvider();
  const first = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider });
  try {
    await new Client({ name: 'mcp-oauth-check', version: '1.0.0' }).connect(first);
    throw new Error('connected without signing in');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  provider.authorizationUrl.searchParams.set('login_hint', user); // which emulated Google user signs in
  const callback = await browse(provider.authorizationUrl);
  if (callback.get('state') !== 'node-state') throw new Error(`state came back as ${callback.get('state')}`);
  await first.finishAuth(callback);
  const client = await connected(provider);
  const before = await ids(client);
  const tokensBefore = provider.saved.length;
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.WAIT_FOR_EXPIRY_MS ?? 0)));
  const after = await ids(client); // the access token has expired: the SDK refreshes on the 401 and retries
  await client.close();
  results[user] = { ids: before, idsAfterRefresh: after, refreshed: provider.saved.length > tokensBefore
      && provider.saved.at(-1).refresh_token !== provider.saved[tokensBefore - 1].refresh_token, registrations: provider.registrations };
}
process.stdout.write(JSON.stringify(results) + '\n');
