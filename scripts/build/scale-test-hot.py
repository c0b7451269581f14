"""scripts/build/scale-test's hot phase, measured: issue 44's targets from the callers' records (scale-driver.mjs hot), the
emulator's counters, DynamoDB's outage and the tracking rows; each target with its value and met or MISSED, added to
report.json and written to stderr. Exits 1 when an answer was another user's, or when a value is past the bound
where the behaviour is broken (enforce), or misses its target (strict).

    scale-test-hot.py OUT OUTAGE ANSWERED ROWS HOT_USER QUOTA MAX_RESULTS enforce|strict|report

OUTAGE: [down, up] in epoch ms, or null when the driver never reached the hot step."""
import json
import sys

out, outage, answered, rows = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
hot_user, quota, max_results, targets = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8]
run = json.load(open(f"{out}/hot-result.json"))
records, start = run["records"], run["hot_started_ms"]
down, up = outage if outage else (None, None)


def by(who):
    return [r for r in records if r["who"] == who]


def pct(values, p):
    v = sorted(values)
    return round(v[min(len(v) - 1, int(len(v) * p))], 1) if v else None


def ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


def summary(rs):
    codes = {}
    for r in rs:
        if r.get("error"):
            code = r.get("code") or "no_answer"
            codes[code] = codes.get(code, 0) + 1
    ms = [r["ms"] for r in rs]
    return {"calls": len(rs), "ok": sum(1 for r in rs if r.get("ok")), "wrong": sum(1 for r in rs if r.get("wrong")),
            "errors": codes, "p50_ms": pct(ms, 0.5), "p99_ms": pct(ms, 0.99), "max_ms": pct(ms, 1)}


def ended_before_outage(r):
    return down is None or r["at"] + r["ms"] < down


hot, tail_alone, tail = by("hot"), by("tail-alone"), by("tail")
results = []


def target(name, value, goal, met, sound=None):
    """met: True, False, or None when there was nothing to measure (no refusals). sound: whether the value is within
    the looser bound past which the behaviour is broken, not noisy (None: the target itself is that bound); the run
    fails on a bound broken (SCALE_TEST_TARGETS=enforce, the default), on a target missed (=strict), or never (=report).
    One run of a few hundred calls on a shared 2-core machine moves a ratio of two p99s by tens of percent."""
    results.append({"name": name, "value": value, "target": goal, "met": met,
                    "sound": met if sound is None else sound})


# The hot user: none of its calls past their deadline; refusals at once, saying when to come back; its quota spent on
# calls that succeed, not on Gmail's refusals.
deadlines = sum(1 for r in hot if r.get("code") == "deadline")
target("hot user: calls past their deadline (deadline errors)", deadlines, "0", deadlines == 0,
       deadlines <= 0.02 * len(hot))
refused = [r for r in hot if r.get("code") == "rate_limited"]
refused_ms = [r["ms"] for r in refused]
carried = sum(1 for r in refused if r.get("retryAfter"))
target("hot user: refusals (rate_limited), their latency and retry_after_ms",
       {"refused": len(refused), "p50_ms": pct(refused_ms, 0.5), "p99_ms": pct(refused_ms, 0.99),
        "with_retry_after_ms": carried}, "p99 <= 50 ms, every one with retry_after_ms",
       None if not refused else pct(refused_ms, 0.99) <= 50 and carried == len(refused),
       # broken is refusing after a wait as a rule (p50), not one call refused at its retry after a first attempt
       # spent seconds (seen beside stress-ng: p99 4.8 s, p50 10 ms)
       None if not refused else pct(refused_ms, 0.5) <= 1000 and carried == len(refused))
# what a call that succeeds spent, mail index off: list_emails(n) is messages.list and n messages.get, 5 units each
units = {"list": 5 * (1 + max_results), "get": 5}
ok_units = sum(units[r["tool"]] for r in hot if r.get("ok"))
# The quota while the hot user asks 1.5x of it: from the hot step's start to its last call's arrival, the units the
# emulator accepted from it then (its counters, sampled every half second), of which the share of all it accepted that
# went to calls that succeeded. Until 2026-12-05 the window ran to the hot user's last answer: the ~7 s after arrivals
# end, while the calls admitted last finish their round trips, ask less than the quota by the load's design, and cost
# 4-9 points there that no pacing could win; that measure is kept beside it, for comparison with earlier runs.
address = f"user{hot_user}@example.com"
before, after = run["emulator_before"].get(address, {}), run["emulator_after"].get(address, {})
gmail_calls = after.get("apiCalls", 0) - before.get("apiCalls", 0)
too_many = after.get("tooManyRequests", 0) - before.get("tooManyRequests", 0)
units_spent = 5 * (gmail_calls - too_many)
arrivals_s = json.load(open(f"{out}/hot.json"))["hotSeconds"]
timeline = run.get("hot_timeline") or []


def accepted_at(ms):
    """Units the emulator accepted from the hot user by ms into the step, between the samples around it."""
    points = [(0, 0)] + [(t["ms"], 5 * (t["calls"] - t["refused"] - timeline[0]["calls"] + timeline[0]["refused"]))
                         for t in timeline]
    for (t0, u0), (t1, u1) in zip(points, points[1:]):
        if t0 <= ms <= t1:
            return u0 + (u1 - u0) * (ms - t0) / max(1, t1 - t0)
    return points[-1][1]


in_window = accepted_at(arrivals_s * 1000) if timeline else 0
ok_fraction = ok_units / units_spent if units_spent else 0
share = in_window * min(1.0, ok_fraction) / (quota / 60 * arrivals_s)
to_last = (max(r["at"] + r["ms"] for r in hot) - start) / 1000 if hot else 0
target("hot user: share of its quota spent on calls that succeed",
       {"units_accepted_while_asking": round(in_window), "seconds": arrivals_s, "of_them_ok": round(ok_fraction, 3),
        "share": round(share, 3),
        "to_the_last_answer": {"units_ok": ok_units, "seconds": round(to_last, 1),
                               "share": round(ok_units / (quota / 60 * to_last), 3) if to_last else 0}},
       ">= 97 %", share >= 0.97, share >= 0.7)  # phase 2's bound; seen beside stress-ng: 84 %
target("hot user: emulator 429s over its Gmail calls",
       {"429s": too_many, "gmail_calls": gmail_calls, "share": round(too_many / max(1, gmail_calls), 4),
        "units_spent": units_spent}, "<= 1 %", too_many <= 0.01 * gmail_calls,
       too_many <= 0.03 * gmail_calls)

# The tail users' Gmail calls that the emulator refused (429) in the hot step, for reference: a tail user is paced at a
# third of its quota on each instance, and any pacing that lends an instance more of it while the user asks little
# (tried: the unasked part of the quota and burst to each) shows here first.
tail_users = {f"user{r['user']}@example.com" for r in records if r["who"] in ("tail", "tail-alone")}
tail_calls = sum(run["emulator_after"].get(a, {}).get("apiCalls", 0) - run["emulator_before"].get(a, {}).get("apiCalls", 0)
                 for a in tail_users)
tail_429s = sum(run["emulator_after"].get(a, {}).get("tooManyRequests", 0)
                - run["emulator_before"].get(a, {}).get("tooManyRequests", 0) for a in tail_users)
tail_refused = {"429s": tail_429s, "gmail_calls": tail_calls, "share": round(tail_429s / max(1, tail_calls), 4)}

# The tail beside the hot user (calls ended before the outage) against the tail alone.
tail_before = [r for r in tail if ended_before_outage(r)]
alone_p99, with_p99 = pct([r["ms"] for r in tail_alone], 0.99), pct([r["ms"] for r in tail_before], 0.99)
target("tail p99 with the hot user / without it",
       {"with_ms": with_p99, "without_ms": alone_p99, "calls_with": len(tail_before), "calls_without": len(tail_alone),
        "ratio": ratio(with_p99, alone_p99)}, "<= 1.2", bool(alone_p99 and with_p99 and with_p99 <= 1.2 * alone_p99),
       # broken at 2.5x: seen 1.13-1.74 over nine runs, set by the tail's own top user's bursts (a third of its bucket on
       # each instance), which the hot user does not cause
       bool(alone_p99 and with_p99 and with_p99 <= 2.5 * alone_p99))

# A fresh user's one list_emails(4) while the hot user is spread over the instances (and the tail runs), against the
# same with nobody spread (quiet instances, warmed each by a user of its own); with the tail only, for reference.
quiet, spread = pct([r["ms"] for r in by("probe-quiet")], 0.5), pct([r["ms"] for r in by("probe-hot")], 0.5)
target("fresh user's list_emails(4) p50 while the hot user is spread / nobody spread",
       {"spread_ms": spread, "nobody_spread_ms": quiet, "tail_only_ms": pct([r["ms"] for r in by("probe-tail")], 0.5),
        "ratio": ratio(spread, quiet)}, "<= 1.15", bool(quiet and spread and spread <= 1.15 * quiet),
       bool(quiet and spread and spread <= 1.5 * quiet))

# After DynamoDB's outage: every call answered in the phase tracked; no call that ended after the outage began slower
# than 1.2x the p99 of its kind (who, tool) among the calls that ended before it.
target("tracking rows / calls answered (hot phase, DynamoDB down 10 s)", {"rows": rows, "answered": answered}, "equal",
       rows == answered)
# The tail's calls only: the hot user's wait is its own quota's backlog, which admission lets grow to three quarters of
# its deadline whatever DynamoDB does (its backlog builds over the phase, so its calls before the outage wait less than
# those after it); the outage's cost to it is what the "past their deadline" target above counts. Its figures are
# shown beside, for reference.
slower, kinds, hot_kinds = 0, {}, {}
for who, base_whos in (("hot", ("hot",)), ("tail", ("tail", "tail-alone"))):
    for tool in ("list", "get"):
        base = [r for r in records if r["who"] in base_whos and r["tool"] == tool and ended_before_outage(r)]
        p99 = pct([r["ms"] for r in base], 0.99)
        hit = [r for r in records if r["who"] == who and r["tool"] == tool and not ended_before_outage(r)]
        if p99 and hit:
            over = sum(1 for r in hit if r["ms"] > 1.2 * p99)
            figures = {"no_outage_p99_ms": p99, "max_ms": max(r["ms"] for r in hit), "calls": len(hit), "slower": over}
            if who == "hot":
                hot_kinds[f"{who} {tool}"] = figures
            else:
                slower += over
                kinds[f"{who} {tool}"] = figures
target("tail calls ended after the outage began, slower than 1.2x their kind's no-outage p99",
       {"slower": slower, "by_kind": kinds, "hot_user_for_reference": hot_kinds}, "0", down is not None and slower == 0,
       down is not None and slower <= 3)

report = json.load(open(f"{out}/report.json"))
report["hot"] = {
    "settings": {"quota_units_a_minute": quota, "max_results": max_results,
                 "hot_elapsed_s": round(run["hot_elapsed_ms"] / 1000, 1),
                 "outage_s": [round((down - start) / 1000, 1), round((up - start) / 1000, 1)] if down else None},
    "hot_user": summary(hot), "tail_alone": summary(tail_alone), "tail": summary(tail),
    "tail_before_outage": summary(tail_before), "tail_emulator_429s": tail_refused,
    "probes": {w: summary(by(w)) for w in ("probe-quiet", "probe-tail", "probe-hot")}, "warm": summary(by("warm")),
    "targets": results, "targets_mode": targets, "errors": run["errors"][:20], "wrong_answers": run["wrong_answers"]}
# when the hot user's quota was spent, as the emulator counted its calls (every call it makes costs 5 units), by 2 s:
# where a share of the quota is lost (a start, an outage, an end) shows here, not in the calls' end times
timeline = run.get("hot_timeline") or []
spent, refusals = [], []
for i in range(1, len(timeline)):
    b = int(timeline[i]["ms"] // 2000)
    while len(spent) <= b:
        spent.append(0); refusals.append(0)
    calls = timeline[i]["calls"] - timeline[i - 1]["calls"]
    refused = timeline[i]["refused"] - timeline[i - 1]["refused"]
    spent[b] += 5 * (calls - refused)
    refusals[b] += refused
report["hot"]["hot_user_spending"] = {"units_per_2s": spent, "quota_per_2s": quota / 30, "emulator_429s_per_2s": refusals}
json.dump(report, open(f"{out}/report.json", "w"), indent=2)

h = report["hot"]
for name in ("hot_user", "tail_alone", "tail"):
    g = h[name]
    print(f"scale-test: hot: {name.replace('_', ' ')}: {g['calls']} calls, {g['ok']} ok, {g['wrong']} wrong, errors "
          f"{g['errors']}; p50 {g['p50_ms']} ms, p99 {g['p99_ms']} ms, max {g['max_ms']} ms", file=sys.stderr)
print(f"scale-test: hot: the tail's Gmail calls refused by the emulator: {tail_429s} of {tail_calls}", file=sys.stderr)
sp = h["hot_user_spending"]
print(f"scale-test: hot: the hot user's quota spent by 2 s (of {sp['quota_per_2s']:.0f}; outage "
      f"{h['settings']['outage_s']} s): {sp['units_per_2s']}; its 429s: {sp['emulator_429s_per_2s']}", file=sys.stderr)
for e in [e for e in run["errors"] if "deadline" not in e and "rate_limited" not in e][:10]:
    print(f"scale-test:   failed: {e}", file=sys.stderr)
for w in run["wrong_answers"][:5]:
    print(f"scale-test:   wrong: {w}", file=sys.stderr)
for t in results:
    verdict = "n/a" if t["met"] is None else "met" if t["met"] else "MISSED"
    print(f"scale-test: hot target: {t['name']}: {json.dumps(t['value'])} (target {t['target']}): {verdict}",
          file=sys.stderr)
problems = []
wrong = sum(g["wrong"] for g in (h["hot_user"], h["tail_alone"], h["tail"], h["warm"], *h["probes"].values()))
if wrong:
    problems.append(f"{wrong} answers from another user's mailbox")
missed = [t["name"] for t in results if t["met"] is False]
broken = [t["name"] for t in results if t["sound"] is False]
if missed and targets == "strict":
    problems.append(f"{len(missed)} of {len(results)} targets missed (SCALE_TEST_TARGETS=report only reports them)")
if broken and targets == "enforce":
    problems.append("broken, not noisy: " + "; ".join(broken))
if problems:
    print("scale-test: hot phase FAILED: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("scale-test: hot phase passed" + (f" ({len(missed)} targets missed, reported only)" if missed else ""),
      file=sys.stderr)
