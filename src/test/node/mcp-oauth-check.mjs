// The official MCP TypeScript SDK client signing users in to `agent-tools server` by its own OAuth support (the
// authProvider of StreamableHTTPClientTransport), as McpAuthorizationTest starts it: discovery from the 401, dynamic
// registration, the authorization request with PKCE and resource, the browser's hops (the server, the emulator's
// Google consent, the server's callback) followed here by fetch, the code traded, tools/call, and, once the server's
// short-lived access token has expired, the SDK's own refresh.
//
//   node mcp-oauth-check.mjs SERVER_URL USER... > results.json
//
// Prints {"<user>": {"ids": [...], "idsAfterRefresh": [...], "refreshed": bool, "registrations": n}}.
import { MemoryProvider, signedIn } from './oauth-memory-provider.mjs';

const [server, ...users] = process.argv.slice(2);

async function ids(client) {
  const result = await client.callTool({ name: 'list_emails', arguments: { max_results: 5 } });
  if (result.isError) throw new Error(`list_emails: ${result.content[0].text}`);
  return JSON.parse(result.content[0].text).emails.map((e) => e.id);
}

const results = {};
for (const user of users) {
  const provider = new MemoryProvider('mcp-oauth-check');
  const client = await signedIn(server, provider, user);
  const before = await ids(client);
  const tokensBefore = provider.saved.length;
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.WAIT_FOR_EXPIRY_MS ?? 0)));
  const after = await ids(client); // the access token has expired: the SDK refreshes on the 401 and retries
  await client.close();
  results[user] = { ids: before, idsAfterRefresh: after, refreshed: provider.saved.length > tokensBefore
      && provider.saved.at(-1)?.refresh_token !== provider.saved[tokensBefore - 1].refresh_token, registrations: provider.registrations };
}
process.stdout.write(JSON.stringify(results) + '\n');
