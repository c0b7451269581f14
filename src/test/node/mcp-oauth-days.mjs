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
import { MemoryProvider, signedIn } from './oauth-memory-provider.mjs';

const [server, cycles, waitMs, ...users] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function session(user) {
  const provider = new MemoryProvider('mcp-oauth-days');
  return { user, provider, client: await signedIn(server, provider, user), idLists: new Set(), calls: 0 };
}

async function call(s, name, args) {
  const result = await s.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${s.user} ${name}: ${result.content[0].text}`);
  s.calls++;
  return JSON.parse(result.content[0].text);
}

const sessions = await Promise.all(users.map(session));
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
    refreshes: new Set(s.provider.saved.filter(Boolean).map((t) => t.refresh_token)).size - 1, signIns: s.provider.redirects.length };
}
process.stdout.write(JSON.stringify(results) + '\n');
process.exit(0);
