// The article's design in Node, as a reference measured against the same emulator in the same run: the official
// Gmail client (@googleapis/gmail), messages.list then every messages.get at once (Promise.all), over keep-alive
// connections. Usage: node list-timing.mjs ROOT_URL [N] [RUNS]; prints JSON with p50/p90/min/max of the list of N
// and of a single get, in milliseconds, timed here (the caller's view).
import { gmail } from '@googleapis/gmail';
import { OAuth2Client } from 'google-auth-library';
import http from 'node:http';

const [rootUrl, nArg, runsArg] = process.argv.slice(2);
const n = Number(nArg ?? 10);
const runs = Number(runsArg ?? 30);
const auth = new OAuth2Client();
auth.setCredentials({ access_token: 'node-reference' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
const client = gmail({ version: 'v1', auth, rootUrl, agent });

async function list() {
  const ids = (await client.users.messages.list({ userId: 'me', maxResults: n, labelIds: ['INBOX'] }, { agent })).data.messages;
  return Promise.all(ids.map((m) => client.users.messages.get({ userId: 'me', id: m.id, format: 'metadata' }, { agent })));
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
  return { p50: at(50), p90: at(90), min: s[0], max: s[s.length - 1], runs: s.length };
}

async function time(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const firstId = (await client.users.messages.list({ userId: 'me', maxResults: 1 }, { agent })).data.messages[0].id;
await list(); // warm-up, as the benchmark's one warm-up run
const lists = [];
for (let i = 0; i < runs; i++) lists.push(await time(list));
const gets = [];
await client.users.messages.get({ userId: 'me', id: firstId }, { agent });
for (let i = 0; i < runs; i++) gets.push(await time(() => client.users.messages.get({ userId: 'me', id: firstId }, { agent })));
console.log(JSON.stringify({ list: stats(lists), get: stats(gets), n }));
agent.destroy();
