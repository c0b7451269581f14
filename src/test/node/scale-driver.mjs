// The callers of scripts/scale-test: many users' agents calling `agent-tools server` instances behind a load balancer,
// half of each user's calls over POST /v1/call (fetch) and half over MCP Streamable HTTP at /mcp (the official MCP
// TypeScript SDK's client and transport), timed here, as a caller sees them.
//
//   node scale-driver.mjs mixed  CONFIG.json   100 users x 20 mixed calls; SIGKILLs one instance half-way
//   node scale-driver.mjs shared CONFIG.json   one user's calls arriving at a multiple of its Gmail quota
//
// CONFIG: {"balancer": URL, "emulator": URL, "key": service key, "out": results file, and for mixed: "users",
// "killPid", "killAt" (share of calls answered before the kill); for shared: "user", "rate" (calls a second),
// "seconds" (how long calls arrive), "maxResults"}. Each answer is checked against what the emulator itself lists
// for that user: an answer from another user's mailbox counts as wrong (and fails the run), not as ok.
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [mode, configFile] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configFile, 'utf8'));
const CALL_TIMEOUT_MS = 90_000;

const tokenOf = (user) => `emulator-user-${user}`;

/** What the emulator lists for the user, asked directly (the truth each answer is checked against). */
async function expected(user) {
  const get = async (query) => {
    const r = await fetch(`${config.emulator}gmail/v1/users/me/messages?${query}`,
      { headers: { Authorization: `Bearer ${tokenOf(user)}` } });
    if (!r.ok) throw new Error(`emulator: user ${user}: HTTP ${r.status}`);
    return ((await r.json()).messages ?? []).map((m) => m.id);
  };
  return { list: await get('labelIds=INBOX&maxResults=10'), search: await get('q=has%3Aattachment&maxResults=5') };
}

/** One call over POST /v1/call: {ok, wrong, error, ms}. */
async function viaCall(user, command, params, check) {
  return { protocol: 'call', ...(await callOnce(user, command, params, check)) };
}

async function callOnce(user, command, params, check) {
  const started = performance.now();
  try {
    const r = await fetch(`${config.balancer}v1/call`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${config.key}`, 'X-Google-Access-Token': tokenOf(user), 'Content-Type': 'application/json' },
      body: JSON.stringify({ command, params }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const text = await r.text();
    const ms = performance.now() - started;
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      return { ms, error: `HTTP ${r.status}, not JSON: ${text.slice(0, 120).replace(/\s+/g, ' ')}`, answered: false };
    }
    if (answer.status !== 'ok') return { ms, error: `HTTP ${r.status} ${answer.error?.code}: ${answer.error?.message}`, answered: true };
    const flaw = check(answer.data);
    return flaw ? { ms, wrong: flaw, answered: true } : { ms, ok: true, answered: true };
  } catch (e) {
    return { ms: performance.now() - started, error: `no answer: ${e.message ?? e}`, answered: false };
  }
}

/** An MCP client of the user's own (one session per user, as an agent keeps one). */
async function mcpClient(user) {
  const transport = new StreamableHTTPClientTransport(new URL(`${config.balancer}mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${config.key}`, 'X-Google-Access-Token': tokenOf(user) } },
  });
  const client = new Client({ name: 'scale-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** One call over MCP tools/call. */
async function viaMcp(client, name, args, check) {
  return { protocol: 'mcp', ...(await mcpOnce(client, name, args, check)) };
}

async function mcpOnce(client, name, args, check) {
  const started = performance.now();
  try {
    const result = await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS });
    const ms = performance.now() - started;
    const text = result.content?.[0]?.text ?? '';
    if (result.isError) return { ms, error: `tool error: ${text.slice(0, 200)}`, answered: true };
    const flaw = check(JSON.parse(text));
    return flaw ? { ms, wrong: flaw, answered: true } : { ms, ok: true, answered: true };
  } catch (e) {
    return { ms: performance.now() - started, error: `MCP: ${e.message ?? e}`, answered: false };
  }
}

const sameIds = (want, what) => (data) => {
  const got = (data.emails ?? []).map((m) => m.id);
  return JSON.stringify(got) === JSON.stringify(want) ? null : `${what}: got ${got.slice(0, 3)}..., want ${want.slice(0, 3)}...`;
};
const isEmail = (id) => (data) => (data.id === id ? null : `get_email ${id}: got ${data.id}`);
const hasEvents = (data) => (Array.isArray(data.events) ? null : 'list_events: no events array');

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
}

function summary(results) {
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  return {
    calls: results.length,
    ok: results.filter((r) => r.ok).length,
    wrong: results.filter((r) => r.wrong).length,
    failed: results.filter((r) => r.error).length,
    answered: results.filter((r) => r.answered).length,
    p50_ms: +percentile(ms, 0.5)?.toFixed(1),
    p99_ms: +percentile(ms, 0.99)?.toFixed(1),
    max_ms: +(ms.at(-1) ?? 0).toFixed(1),
  };
}

async function mixed() {
  const users = Array.from({ length: config.users }, (_, i) => i + 1);
  const truth = new Map();
  for (let i = 0; i < users.length; i += 20) {
    await Promise.all(users.slice(i, i + 20).map(async (u) => truth.set(u, await expected(u))));
  }
  const total = users.length * 20;
  const results = [];
  let inFlight = 0;
  let killed = null;
  const record = (r) => {
    results.push(r);
    if (killed === null && config.killPid && results.length >= total * config.killAt) {
      killed = { afterCalls: results.length, inFlight, atMs: performance.now() };
      process.kill(config.killPid, 'SIGKILL');
    }
  };
  const run = async (make) => {
    inFlight++;
    try {
      record(await make());
    } finally {
      inFlight--;
    }
  };
  const started = performance.now();
  await Promise.all(users.map(async (u) => {
    const t = truth.get(u);
    // two lanes per user, as an agent answering two questions at once: ten calls each, one lane per protocol
    const callLane = async () => {
      for (let i = 0; i < 10; i++) {
        const k = i % 4;
        if (k === 0) await run(() => viaCall(u, 'gmail.list-emails', { max_results: 10 }, sameIds(t.list, 'list_emails')));
        else if (k === 1) await run(() => viaCall(u, 'gmail.get-email', { message_id: t.list[i % t.list.length] }, isEmail(t.list[i % t.list.length])));
        else if (k === 2) await run(() => viaCall(u, 'gmail.search-emails', { query: 'has:attachment', max_results: 5 }, sameIds(t.search, 'search_emails')));
        else await run(() => viaCall(u, 'calendar.list-events', { time_min: '2026-06-01', max_results: 10 }, hasEvents));
      }
    };
    const mcpLane = async () => {
      let client;
      try {
        client = await mcpClient(u);
      } catch (e) {
        for (let i = 0; i < 10; i++) record({ protocol: 'mcp', ms: 0, error: `MCP connect: ${e.message ?? e}`, answered: false });
        return;
      }
      try {
        for (let i = 0; i < 10; i++) {
          const k = (i + 2) % 4;
          if (k === 0) await run(() => viaMcp(client, 'list_emails', { max_results: 10 }, sameIds(t.list, 'list_emails')));
          else if (k === 1) await run(() => viaMcp(client, 'get_email', { message_id: t.list[(i + 5) % t.list.length] }, isEmail(t.list[(i + 5) % t.list.length])));
          else if (k === 2) await run(() => viaMcp(client, 'search_emails', { query: 'has:attachment', max_results: 5 }, sameIds(t.search, 'search_emails')));
          else await run(() => viaMcp(client, 'list_events', { time_min: '2026-06-01', max_results: 10 }, hasEvents));
        }
      } finally {
        await client.close().catch(() => {});
      }
    };
    await Promise.all([callLane(), mcpLane()]);
  }));
  const elapsedMs = performance.now() - started;
  const byProtocol = (p) => summary(results.filter((r) => r.protocol === p));
  const out = {
    mode: 'mixed', users: users.length, elapsed_ms: Math.round(elapsedMs), ...summary(results),
    v1_call: byProtocol('call'), mcp: byProtocol('mcp'),
    killed: killed && { after_calls: killed.afterCalls, in_flight: killed.inFlight, at_ms: Math.round(killed.atMs - started) },
    errors: results.filter((r) => r.error).map((r) => r.error).slice(0, 50),
    wrong_answers: results.filter((r) => r.wrong).map((r) => r.wrong).slice(0, 20),
  };
  writeFileSync(config.out, JSON.stringify(out, null, 2));
  return out;
}

async function shared() {
  const u = config.user;
  const t = await expected(u);
  const want = t.list.slice(0, config.maxResults);
  const results = [];
  const calls = [];
  const started = performance.now();
  const count = Math.round(config.rate * config.seconds);
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / config.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // the mail index off: every call asks Gmail, so the calls spend the user's quota
    calls.push(viaCall(u, 'gmail.list-emails', { max_results: config.maxResults, cache: 'off', timeout_ms: CALL_TIMEOUT_MS - 5_000 },
      sameIds(want, 'list_emails')).then((r) => results.push(r)));
  }
  const arrivedMs = performance.now() - started;
  await Promise.all(calls);
  const out = {
    mode: 'shared', user: u, rate: config.rate, arrived_ms: Math.round(arrivedMs),
    elapsed_ms: Math.round(performance.now() - started), ...summary(results),
    errors: results.filter((r) => r.error).map((r) => r.error).slice(0, 50),
    wrong_answers: results.filter((r) => r.wrong).map((r) => r.wrong).slice(0, 20),
  };
  writeFileSync(config.out, JSON.stringify(out, null, 2));
  return out;
}

const out = mode === 'mixed' ? await mixed() : mode === 'shared' ? await shared() : null;
if (!out) {
  console.error('usage: node scale-driver.mjs mixed|shared CONFIG.json');
  process.exit(2);
}
const { errors, wrong_answers, ...head } = out;
console.log(JSON.stringify(head));
process.exit(0);
