// The callers of scripts/build/scale-test: many users' agents calling `agent-tools server` instances behind a load balancer,
// half of each user's calls over POST /v1/call (fetch) and half over MCP Streamable HTTP at /mcp (the official MCP
// TypeScript SDK's client and transport), timed here, as a caller sees them.
//
//   node scale-driver.mjs mixed  CONFIG.json   100 users x 20 mixed calls; SIGKILLs one instance half-way
//   node scale-driver.mjs shared CONFIG.json   one user's calls arriving at a multiple of its Gmail quota
//   node scale-driver.mjs hot    CONFIG.json   a hot user over its quota beside a Zipf tail of users (see hot())
//
// CONFIG: {"balancer": URL, "emulator": URL, "key": service key, "out": results file, and for mixed: "users",
// "killPid", "killAt" (share of calls answered before the kill); for shared: "user", "rate" (calls a second),
// "seconds" (how long calls arrive), "maxResults"}; for hot, see hot() below. Each answer is checked against its own
// user: its ids against what the emulator itself lists for that user, its subjects against the mark only that user's
// mail carries (the emulator ends every subject of user n >= 2 with [usern]; user 1's carry none). An answer from
// another user's mailbox counts as wrong (and fails the run), not as ok. "swap": [a, b] in any CONFIG gives user a's
// calls user b's token and b's a's, the emulator's truth still asked with each user's own: it proves the check (the
// run must fail), and is never set otherwise.
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [mode, configFile] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configFile, 'utf8'));
const CALL_TIMEOUT_MS = 90_000;

const tokenOf = (user) => `emulator-user-${user}`;
/** The token a user's calls carry: its own, unless CONFIG swaps it with another user's. */
const callerToken = (user) => {
  const [a, b] = config.swap ?? [];
  return tokenOf(user === a ? b : user === b ? a : user);
};

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

/** An error as the run reports it: fetch's "fetch failed" says nothing, its causes (undici's code: a reset, a refusal,
 * a connect timeout, the other side closing) say why. */
const why = (e) => {
  const causes = [];
  for (let c = e?.cause; c && causes.length < 3; c = c.cause) causes.push(`${c.code ?? c.name ?? ''} ${c.message ?? c}`.trim());
  return `${e?.message ?? e}${causes.length ? ` (${causes.join('; ')})` : ''}`;
};

/** One call over POST /v1/call: {ok, wrong, error, ms}. */
async function viaCall(user, command, params, check, base) {
  return { protocol: 'call', ...(await callOnce(user, command, params, check, base)) };
}

async function callOnce(user, command, params, check, base = config.balancer) {
  const started = performance.now();
  try {
    const r = await fetch(`${base}v1/call`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${config.key}`, 'X-Google-Access-Token': callerToken(user),
        'Content-Type': 'application/json',
      },
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
    if (answer.status !== 'ok') {
      // a refusal's wait, as the caller finds it: retry_after_ms in the error and, on 429, HTTP's Retry-After
      const retryAfter = hasRetryAfterMs(answer.error) && (r.status !== 429 || r.headers.has('retry-after'));
      return { ms, error: `HTTP ${r.status} ${answer.error?.code}: ${answer.error?.message}`, code: answer.error?.code,
        retryAfter, answered: true };
    }
    const flaw = check(answer.data);
    return flaw ? { ms, wrong: flaw, answered: true } : { ms, ok: true, answered: true };
  } catch (e) {
    return { ms: performance.now() - started, error: `no answer: ${why(e)}`, answered: false };
  }
}

/** An MCP client of the user's own (one session per user, as an agent keeps one). */
async function mcpClient(user) {
  const transport = new StreamableHTTPClientTransport(new URL(`${config.balancer}mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${config.key}`, 'X-Google-Access-Token': callerToken(user) } },
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
    if (result.isError) {
      return { ms, error: `tool error: ${text.slice(0, 200)}`, code: text.split(':')[0],
        retryAfter: hasRetryAfterMs(result), answered: true };
    }
    const flaw = check(JSON.parse(text));
    return flaw ? { ms, wrong: flaw, answered: true } : { ms, ok: true, answered: true };
  } catch (e) {
    return { ms: performance.now() - started, error: `MCP: ${why(e)}`, answered: false };
  }
}

/** Whether a refusal names how long to wait: a retry_after_ms number anywhere in it (the error, MCP's result). */
const hasRetryAfterMs = (x) => /retry_after_ms[\\"' ]*[:=]\s*\d/.test(JSON.stringify(x ?? null));

/** Whose mail a subject is, by the emulator's mark (user 1's carry none), or null when it is `user`'s own. */
const SUBJECT_MARK = /\[user([1-9][0-9]*)\]$/;
const subjectFlaw = (user, subject) => {
  const mark = SUBJECT_MARK.exec(subject ?? '');
  const owner = mark ? Number(mark[1]) : 1;
  return owner === user ? null : `subject "${subject}" is user ${owner}'s, not user ${user}'s`;
};
/** The answer lists exactly `want` (ids, in order), each with a subject of `user`'s own. */
const sameMail = (user, want, what) => (data) => {
  const emails = data.emails ?? [];
  const got = emails.map((m) => m.id);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    return `${what} of user ${user}: got ${got.slice(0, 3)}..., want ${want.slice(0, 3)}...`;
  }
  const flaw = emails.map((m) => subjectFlaw(user, m.subject)).find((f) => f);
  return flaw ? `${what}: ${flaw}` : null;
};
const isEmail = (user, id) => (data) => {
  if (data.id !== id) return `get_email ${id} of user ${user}: got ${data.id}`;
  const flaw = subjectFlaw(user, data.subject);
  return flaw ? `get_email ${id}: ${flaw}` : null;
};
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
  // the check is blind to a swap between two users whose mail lists alike: none may
  const lists = new Map();
  for (const [u, t] of truth) {
    const key = JSON.stringify(t.list);
    if (lists.has(key)) {
      throw new Error(`users ${lists.get(key)} and ${u} list the same ids: a swap between them would pass`);
    }
    lists.set(key, u);
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
    const at = performance.now() - started;
    try {
      record({ ...(await make()), at });
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
        const id = t.list[i % t.list.length];
        const list = sameMail(u, t.list, 'list_emails');
        if (k === 0) await run(() => viaCall(u, 'gmail.list-emails', { max_results: 10 }, list));
        else if (k === 1) await run(() => viaCall(u, 'gmail.get-email', { message_id: id }, isEmail(u, id)));
        else if (k === 2) {
          await run(() => viaCall(u, 'gmail.search-emails', { query: 'has:attachment', max_results: 5 },
            sameMail(u, t.search, 'search_emails')));
        }
        else await run(() => viaCall(u, 'calendar.list-events', { time_min: '2026-06-01', max_results: 10 }, hasEvents));
      }
    };
    const mcpLane = async () => {
      let client;
      try {
        client = await mcpClient(u);
      } catch (e) {
        const at = performance.now() - started;
        for (let i = 0; i < 10; i++) record({ protocol: 'mcp', ms: 0, at, error: `MCP connect: ${why(e)}`, answered: false });
        return;
      }
      try {
        for (let i = 0; i < 10; i++) {
          const k = (i + 2) % 4;
          const id = t.list[(i + 5) % t.list.length];
          const list = sameMail(u, t.list, 'list_emails');
          if (k === 0) await run(() => viaMcp(client, 'list_emails', { max_results: 10 }, list));
          else if (k === 1) await run(() => viaMcp(client, 'get_email', { message_id: id }, isEmail(u, id)));
          else if (k === 2) {
            await run(() => viaMcp(client, 'search_emails', { query: 'has:attachment', max_results: 5 },
              sameMail(u, t.search, 'search_emails')));
          }
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
    // answered deadline: the call's 30 s ran out (on a machine the rest of the suite overloads), said as such
    deadlines: results.filter((r) => r.error && r.code === 'deadline').length,
    errors: results.filter((r) => r.error).map((r) => r.error).slice(0, 50),
    error_kinds: errorKinds(results),
    wrong_answers: results.filter((r) => r.wrong).map((r) => r.wrong).slice(0, 20),
  };
  writeFileSync(config.out, JSON.stringify(out, null, 2));
  return out;
}

/** Every failure counted by its kind (the error with its numbers and ids blanked), most frequent first, with when the
 * calls of that kind began (s into the phase, first and last) and how long they took (ms, least and most): the first
 * 50 errors alone can all be one kind while a few hundred of another go unseen, and a kind all at the kill is not one
 * spread over the run. */
function errorKinds(results) {
  const kinds = new Map();
  for (const r of results.filter((x) => x.error)) {
    const kind = `${r.protocol}: ${r.error.replace(/\b[0-9a-f]{12,}\b/g, 'ID').replace(/\d+(\.\d+)?/g, 'N')}`;
    const k = kinds.get(kind) ?? { calls: 0, began_s: [Infinity, -Infinity], ms: [Infinity, -Infinity] };
    k.calls++;
    const at = (r.at ?? 0) / 1000;
    k.began_s = [Math.min(k.began_s[0], at), Math.max(k.began_s[1], at)];
    k.ms = [Math.min(k.ms[0], r.ms), Math.max(k.ms[1], r.ms)];
    kinds.set(kind, k);
  }
  const rounded = (k) => ({ calls: k.calls, began_s: k.began_s.map((x) => +x.toFixed(1)), ms: k.ms.map(Math.round) });
  return Object.fromEntries([...kinds].sort((a, b) => b[1].calls - a[1].calls).map(([kind, k]) => [kind, rounded(k)]));
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
      sameMail(u, want, 'list_emails')).then((r) => results.push(r)));
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

/** A seeded random source in [0, 1) (mulberry32): the same CONFIG makes the same arrivals and choices. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Calls `fire()` at the arrivals of a Poisson process of `rate` a second for `seconds`; all its calls' results. */
async function poisson(random, rate, seconds, fire) {
  const started = performance.now();
  const calls = [];
  for (let t = -Math.log(1 - random()) / rate; t < seconds; t += -Math.log(1 - random()) / rate) {
    const wait = started + t * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
    calls.push(fire());
  }
  return Promise.all(calls);
}

/** Picks one of `users` by Zipf(s): the k-th is picked in proportion to 1 / k^s. */
function zipf(users, s, random) {
  const weights = users.map((_, k) => 1 / (k + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    let x = random() * total;
    for (let k = 0; k < users.length; k++) if ((x -= weights[k]) < 0) return users[k];
    return users.at(-1);
  };
}

/**
 * The hot user beside a tail (issue 44's load): every call list_emails(maxResults, mail index off: each spends the
 * user's quota) or get_email, half each, a share `mcpShare` over /mcp, each with `timeoutMs`, and each answer checked
 * against its own user. In order: `warmUsers[i]` warm instance i directly (so that no user is spread over
 * instances yet); `probeUsers.quiet` make one list each, one after another (nobody spread); the tail alone, Poisson at
 * `tailRate` a second by Zipf(`zipf`) over `tailUsers`, for `tailSeconds`, with `probeUsers.tail` one each from 2 s;
 * then `startedFile` is written (the script times DynamoDB's outage from it) and the tail goes on beside `hotUser` at
 * `hotRate` for `hotSeconds`, with `probeUsers.hot` one each from 2 s. Every call is written out with its user, kind,
 * start (epoch ms), time and outcome, for the script to measure; with the emulator's counters around the last step.
 */
async function hot() {
  const c = config;
  const random = seeded(c.seed ?? 44);
  const probes = [...c.probeUsers.quiet, ...c.probeUsers.tail, ...c.probeUsers.hot];
  const users = [c.hotUser, ...c.tailUsers, ...probes, ...c.warmUsers];
  const truth = new Map();
  for (let i = 0; i < users.length; i += 20) {
    await Promise.all(users.slice(i, i + 20).map(async (u) => truth.set(u, (await expected(u)).list)));
  }
  const records = [];
  const clients = new Map();
  const call = async (who, u, { list, mcp, base }) => {
    const t = truth.get(u);
    const id = t[Math.floor(random() * t.length)];
    const at = Date.now();
    const args = list ? { max_results: c.maxResults, cache: 'off', timeout_ms: c.timeoutMs }
      : { message_id: id, timeout_ms: c.timeoutMs };
    const check = list ? sameMail(u, t.slice(0, c.maxResults), 'list_emails') : isEmail(u, id);
    const r = mcp ? await viaMcp(clients.get(u), list ? 'list_emails' : 'get_email', args, check)
      : await viaCall(u, list ? 'gmail.list-emails' : 'gmail.get-email', args, check, base);
    const record = { who, user: u, tool: list ? 'list' : 'get', at, ...r, ms: +r.ms.toFixed(1) };
    records.push(record);
    return record;
  };
  const userCall = (who, u) => call(who, u, { list: random() < 0.5, mcp: random() < c.mcpShare });
  const probe = (who, u) => call(who, u, { list: true, mcp: false });

  for (let i = 0; i < c.warmUsers.length; i++) {
    for (let n = 0; n < 6; n++) await call('warm', c.warmUsers[i], { list: n === 0, mcp: false, base: c.instances[i] });
  }
  for (const u of c.probeUsers.quiet) await probe('probe-quiet', u);
  for (const u of [c.hotUser, ...c.tailUsers]) clients.set(u, await mcpClient(u));
  const tailUser = zipf(c.tailUsers, c.zipf, random);
  const probing = (who, list) => Promise.all(list.map(async (u, i) => {
    await sleep(2_000 + i * 1_000);
    return probe(who, u);
  }));
  const tailStarted = Date.now();
  await Promise.all([poisson(random, c.tailRate, c.tailSeconds, () => userCall('tail-alone', tailUser())),
    probing('probe-tail', c.probeUsers.tail)]);
  const counters = async () => (await (await fetch(`${c.emulator}emulator/v1/counters`)).json()).users;
  const before = await counters();
  const hotStarted = Date.now();
  writeFileSync(c.startedFile, String(hotStarted));
  // the hot user's Gmail calls and 429s as the emulator counts them, every half second: when its quota was spent,
  // not when the calls that spent it ended
  const hotAddress = `user${c.hotUser}@example.com`;
  const timeline = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      try {
        const u = (await counters())[hotAddress] ?? { apiCalls: 0, tooManyRequests: 0 };
        timeline.push({ ms: Date.now() - hotStarted, calls: u.apiCalls, refused: u.tooManyRequests });
      } catch {
        // a sample missed: the next one counts from the same totals
      }
      await sleep(500);
    }
  })();
  await Promise.all([poisson(random, c.tailRate, c.hotSeconds, () => userCall('tail', tailUser())),
    poisson(random, c.hotRate, c.hotSeconds, () => userCall('hot', c.hotUser)),
    probing('probe-hot', c.probeUsers.hot)]);
  sampling = false;
  await sampler;
  const after = await counters();
  await Promise.all([...clients.values()].map((client) => client.close().catch(() => {})));
  const out = {
    mode: 'hot', tail_started_ms: tailStarted, hot_started_ms: hotStarted, hot_elapsed_ms: Date.now() - hotStarted,
    ...summary(records), emulator_before: before, emulator_after: after, records, hot_timeline: timeline,
    errors: records.filter((r) => r.error).map((r) => `${r.who}: ${r.error}`).slice(0, 50),
    wrong_answers: records.filter((r) => r.wrong).map((r) => r.wrong).slice(0, 20),
  };
  writeFileSync(c.out, JSON.stringify(out));
  delete out.records;
  delete out.emulator_before;
  delete out.emulator_after;
  delete out.hot_timeline;
  return out;
}

const modes = { mixed, shared, hot };
const out = modes[mode] ? await modes[mode]() : null;
if (!out) {
  console.error('usage: node scale-driver.mjs mixed|shared|hot CONFIG.json');
  process.exit(2);
}
const { errors, wrong_answers, ...head } = out;
console.log(JSON.stringify(head));
process.exit(0);
