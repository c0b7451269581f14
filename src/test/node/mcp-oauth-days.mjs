// Signed-in MCP clients that keep calling `agent-tools server` for days without their users (the target),
// as ServerAuthorizationProcessTest starts it: each user signs in once through the official MCP TypeScript SDK
// client's OAuth support; then, every WAIT_MS (longer than the server's and Google's access-token lifetimes), each
// client calls list_emails and list_events, the SDK refreshing the server's token by itself on its 401. Half-way it
// prints {"restart": true} and waits for a line on stdin while the test kills the server and starts it again.
//
//   node mcp-oauth-days.mjs SERVER_URL CYCLES WAIT_MS USER... > results.json
//
// Prints {"<user>": {"idLists": [...distinct id lists seen...], "calls": n, "refreshes": n, "signIns": n}}.
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const [server, cycles, waitMs, ...users] = process.argv.slice(2);
const REDIRECT = 'http://127.0.0.1:9/node-callback';
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

class MemoryProvider {
  constructor() { this.saved = []; this.redirects = 0; }
  get redirectUrl() { return REDIRECT; }
  get clientMetadata() {
    return { client_name: 'mcp-oauth-days', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  state() { return 'node-state'; }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.saved.at(-1); }
  saveTokens(tokens) { this.saved.push(tokens); }
  invalidateCredentials(what) { if (what === 'tokens' || what === 'all') this.saved.push(undefined); }
  redirectToAuthorization(url) { this.redirects++; this.authorizationUrl = url; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

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

async function signedIn(user) {
  const provider = new MemoryProvider();
  const first = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider });
  try {
    await new Client({ name: 'mcp-oauth-days', version: '1.0.0' }).connect(first);
    throw new Error('connected without signing in');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  provider.authorizationUrl.searchParams.set('login_hint', user);
  await first.finishAuth(await browse(provider.authorizationUrl));
  const client = new Client({ name: 'mcp-oauth-days', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider }));
  return { user, provider, client, idLists: new Set(), calls: 0 };
}

async function call(s, name, args) {
  const result = await s.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${s.user} ${name}: ${result.content[0].text}`);
  s.calls++;
  return JSON.parse(result.content[0].text);
}

const sessions = await Promise.all(users.map(signedIn));
const total = Number(cycles);
for (let cycle = 1; cycle <= total; cycle++) {
  await new Promise((resolve) => setTimeout(resolve, Number(waitMs)));
  await Promise.all(sessions.map(async (s) => {
    s.idLists.add(JSON.stringify((await call(s, 'list_emails', { max_results: 5 })).emails.map((e) => e.id)));
    await call(s, 'list_events', {});
  }));
  if (cycle === Math.floor(total / 2)) {
    process.stdout.write(JSON.stringify({ restart: true }) + '\n');
    await lines.next(); // the server has been killed and started again on the same store
  }
}
const results = {};
for (const s of sessions) {
  await s.client.close();
  results[s.user] = { idLists: [...s.idLists].map((l) => JSON.parse(l)), calls: s.calls,
    refreshes: new Set(s.provider.saved.filter(Boolean).map((t) => t.refresh_token)).size - 1, signIns: s.provider.redirects };
}
process.stdout.write(JSON.stringify(results) + '\n');
process.exit(0);
