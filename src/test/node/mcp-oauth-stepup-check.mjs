// The official MCP TypeScript SDK client, of either generation, against `agent-tools server` when a sign-in is not
// enough, as McpAuthorizationTest starts it:
//  1. a sign-in for Gmail only (the scope narrowed in the authorization request, as a client asking for less does);
//     list_emails works; list_events is answered 403 insufficient_scope, and the SDK's step-up asks the user to
//     authorize again with the wider scope; after that sign-in, list_events works;
//  2. the user's Google grant is revoked (the test does it when this script prints {"revoke": USER} and answers
//     with a line on stdin); the very next call must send the client to sign in again, not answer a tool error.
//
// SDK 2.x (`@modelcontextprotocol/client`) answers the 403 by authorizing again; SDK 1.x (`@modelcontextprotocol/sdk`)
// refreshes first, and authorizes again only when the server refuses that refresh (invalid_grant).
//
//   node mcp-oauth-stepup-check.mjs SERVER_URL USER [2|1] > results.json
import { createInterface } from 'node:readline';
import { MemoryProvider, browse } from './oauth-memory-provider.mjs';

const [server, user, generation = '2'] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = generation === '1'
  ? { ...(await import('@modelcontextprotocol/sdk/client/index.js')),
      ...(await import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
      ...(await import('@modelcontextprotocol/sdk/client/auth.js')) }
  : await import('@modelcontextprotocol/client');
const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

/** The user signs in at the authorization URL the SDK asked for last (optionally with a narrower scope). */
async function signIn(provider, transport, scope) {
  const url = new URL(provider.redirects.at(-1));
  url.searchParams.set('login_hint', user);
  if (scope) url.searchParams.set('scope', scope);
  const callback = await browse(url);
  if (generation === '1') {
    // 1.x takes the code alone and leaves the state to the application
    if (callback.get('state') !== 'node-state') throw new Error(`state came back as ${callback.get('state')}`);
    await transport.finishAuth(callback.get('code'));
  } else {
    await transport.finishAuth(callback);
  }
}

/** A tool call that the SDK must answer by asking for a sign-in: the error's name, or what came instead. */
async function refusedCall(client, name, args) {
  try {
    const result = await client.callTool({ name, arguments: args });
    return { error: null, result: result.content[0].text.slice(0, 200) };
  } catch (e) {
    return { error: e instanceof UnauthorizedError ? 'UnauthorizedError' : `${e.constructor.name}: ${e.message}` };
  }
}

async function ok(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${result.content[0].text}`);
  return JSON.parse(result.content[0].text);
}

const provider = new MemoryProvider(`mcp-oauth-stepup-check-v${generation}`);
const first = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider });
try {
  await new Client({ name: 'mcp-oauth-stepup-check', version: '1.0.0' }).connect(first);
  throw new Error('connected without signing in');
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
}
const results = { sdk: generation, firstScopeAsked: new URL(provider.redirects[0]).searchParams.get('scope') };
await signIn(provider, first, 'gmail.readonly');
const transport = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: provider });
const client = new Client({ name: 'mcp-oauth-stepup-check', version: '1.0.0' });
await client.connect(transport);
results.firstScopeGranted = provider.tokens().scope;
results.ids = (await ok(client, 'list_emails', { max_results: 5 })).emails.map((e) => e.id);

const redirectsBefore = provider.redirects.length;
results.eventsWithGmailOnly = await refusedCall(client, 'list_events', {});
results.stepUpRedirects = provider.redirects.length - redirectsBefore;
results.stepUpScopeAsked = new URL(provider.redirects.at(-1)).searchParams.get('scope');
await signIn(provider, transport);
results.stepUpScopeGranted = provider.tokens().scope;
results.eventsAfterStepUp = Object.keys(await ok(client, 'list_events', {}));

process.stdout.write(JSON.stringify({ revoke: user }) + '\n');
await lines.next(); // the test has revoked the user's grant at Google
const redirectsBeforeRevoked = provider.redirects.length;
results.callAfterRevocation = await refusedCall(client, 'list_emails', { max_results: 5 });
results.redirectsAfterRevocation = provider.redirects.length - redirectsBeforeRevoked;
await signIn(provider, transport);
results.idsAfterSigningInAgain = (await ok(client, 'list_emails', { max_results: 5 })).emails.map((e) => e.id);
await client.close();
stdin.close();
process.stdout.write(JSON.stringify(results) + '\n');
