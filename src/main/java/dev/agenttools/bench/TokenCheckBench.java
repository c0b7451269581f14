package dev.agenttools.bench;

import dev.agenttools.Settings;
import dev.agenttools.server.oauth.CheckTiming;
import dev.agenttools.server.oauth.OAuthSettings;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The "token check overhead at most 0.5 ms p50 per call" (MCP authorization on {@code server}): the server's
 * check of an access token, on a SQLite store, and on a DynamoDB store with its cache of checked tokens when
 * {@code AGENT_TOOLS_DYNAMODB_ENDPOINT} names a local DynamoDB (never AWS's: the run would make a table there).
 * A second or two in all.
 */
final class TokenCheckBench {
    static final double TARGET_P50_MS = 0.5;
    private static final int CALLS = 20_000;
    /** Tokens checked once each: a client's first call on an instance. */
    private static final int MISSES = 100;

    private TokenCheckBench() {
    }

    static Map<String, Object> run(PrintWriter out) throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        Path dir = Files.createTempDirectory("agent-tools-bench-oauth");
        try {
            m.put("sqlite", row(out, CheckTiming.run(dir, null, CALLS, MISSES)));
            URI endpoint = endpoint();
            if (endpoint == null) {
                out.println("token check, DynamoDB: skipped (AGENT_TOOLS_DYNAMODB_ENDPOINT names no local DynamoDB, such as dynalite)");
                m.put("dynamodb", "skipped: no AGENT_TOOLS_DYNAMODB_ENDPOINT");
            } else {
                OAuthSettings.DynamoTable table = new OAuthSettings.DynamoTable("agent-tools-bench-oauth-" + System.nanoTime(), endpoint,
                        "us-east-1");
                m.put("dynamodb", row(out, CheckTiming.run(dir, table, CALLS, MISSES)));
            }
            return m;
        } finally {
            TempFolder.delete(dir);
        }
    }

    private static URI endpoint() {
        try {
            return Settings.load().tracking().dynamoEndpoint();
        } catch (IllegalArgumentException e) {
            return null; // a configuration the rest of the run does not need
        }
    }

    private static Map<String, Object> row(PrintWriter out, CheckTiming.Result r) {
        boolean met = r.p50Us() / 1e3 <= TARGET_P50_MS;
        String store = r.store().equals("sqlite") ? "SQLite" : "DynamoDB (cached 5 s)";
        out.printf(Locale.ROOT, "token check, %s: p50 %.1f µs, p99 %.1f µs over %d checks of one token (target ≤ %.1f ms p50: %s);"
                        + " a token's first check here: p50 %.1f µs, p99 %.1f µs (%d tokens)%n",
                store, r.p50Us(), r.p99Us(), r.calls(), TARGET_P50_MS, met ? "met" : "MISSED", r.missP50Us(), r.missP99Us(), r.misses());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("calls", r.calls());
        m.put("p50_us", r.p50Us());
        m.put("p99_us", r.p99Us());
        m.put("first_check_p50_us", r.missP50Us());
        m.put("first_check_p99_us", r.missP99Us());
        m.put("target_p50_ms", TARGET_P50_MS);
        m.put("met", met);
        return m;
    }
}
