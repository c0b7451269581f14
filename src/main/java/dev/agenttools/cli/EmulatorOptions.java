package dev.agenttools.cli;

import dev.agenttools.emulator.EmulatorConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The emulator's options, one picocli mixin: what {@code agent-tools emulator} takes on its command line, and the
 * {@link EmulatorConfig} they make (a value the config refuses is a configuration error naming the option's field).
 */
final class EmulatorOptions {
    @Option(names = "--host", description = "Address to bind (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
    String host;
    @Option(names = "--port", defaultValue = "0",
            description = "Port; 0 takes any free port (default: ${DEFAULT-VALUE}).")
    int port;
    @Option(names = "--latency", defaultValue = "150ms",
            description = "Server time per call (default: ${DEFAULT-VALUE}).")
    Duration latency;
    @Option(names = "--jitter", defaultValue = "10ms",
            description = "Latency varies by up to ± this (default: ${DEFAULT-VALUE}).")
    Duration jitter;
    @Option(names = "--handshake",
            description = "Extra delay on a new connection's first request (default: one latency).")
    Duration handshake;
    @Option(names = "--quota", defaultValue = "15000",
            description = "Quota units per user per minute (default: ${DEFAULT-VALUE}; new Google projects get "
                    + "6000).")
    int quota;
    @Option(names = "--calendar-quota", defaultValue = "600",
            description = "Calendar requests per user per minute (default: ${DEFAULT-VALUE}, as Google's).")
    int calendarQuota;
    @Option(names = "--calendars", defaultValue = "seed",
            description = "'seed', or an .ics file or a folder of them (Google Calendar's export) to serve as the "
                    + "user's calendars (default: ${DEFAULT-VALUE}).")
    String calendars;
    @Option(names = "--burst", description = "Quota bucket size in units (default: one second's worth).")
    Integer burst;
    @Option(names = "--max-concurrent", defaultValue = "20",
            description = "Gmail calls in flight per user before 429 (Calendar has no such limit; default: "
                    + "${DEFAULT-VALUE}).")
    int maxConcurrent;
    @Option(names = "--fail-rate", defaultValue = "0",
            description = "Share of calls failing with an injected 5xx, 0..1 (default: ${DEFAULT-VALUE}).")
    double failRate;
    @Option(names = "--fail-status", split = ",",
            description = "Injected statuses and weights, e.g. 503=3,500=1 (the default).")
    Map<Integer, Integer> failStatus;
    @Option(names = "--slow-rate", defaultValue = "0",
            description = "Share of slow calls, 0..1 (default: ${DEFAULT-VALUE}).")
    double slowRate;
    @Option(names = "--slow-by", defaultValue = "2s",
            description = "How much longer a slow call takes (default: ${DEFAULT-VALUE}).")
    Duration slowBy;
    @Option(names = "--vanish-rate", defaultValue = "0",
            description = "Share of listed messages deleted before they are fetched, 0..1 (default: "
                    + "${DEFAULT-VALUE}).")
    double vanishRate;
    @Option(names = "--batch-part-cost", defaultValue = "1ms",
            description = "Extra server time per batch part (default: ${DEFAULT-VALUE}).")
    Duration batchPartCost;
    @Option(names = "--mailbox", defaultValue = "seed",
            description = "'seed', an mbox file (e.g. from Google Takeout) or a folder of .eml files (default: "
                    + "${DEFAULT-VALUE}).")
    String mailbox;
    @Option(names = "--messages", defaultValue = "1200",
            description = "Messages in the seeded mailbox (default: ${DEFAULT-VALUE}).")
    int messages;
    @Option(names = "--seed", defaultValue = "42",
            description = "RNG seed for mailbox content, jitter and faults (default: ${DEFAULT-VALUE}).")
    long seed;
    @Option(names = "--token", description = "The one accepted bearer token (default: any non-empty token).")
    String token;
    @Option(names = "--user", defaultValue = "me@example.com",
            description = "The mailbox owner's address (default: ${DEFAULT-VALUE}).")
    String user;
    @Option(names = "--users", defaultValue = "1",
            description = "How many users: user 1 is --user, users 2..N are user2@example.com..userN@example.com, "
                    + "each with its own mailbox and calendars (seeded at its first call), quota, concurrency limit "
                    + "and counters; user n's fixed token is emulator-user-n (user 1's is --token when given), and "
                    + "the OAuth sign-in picks the user its login_hint names (default: ${DEFAULT-VALUE}).")
    int users;
    @Option(names = "--token-lifetime", defaultValue = "1h",
            description = "Lifetime of access tokens from the emulated OAuth endpoints (default: ${DEFAULT-VALUE}).")
    Duration tokenLifetime;
    @Option(names = "--tls", description = "Serve HTTPS with HTTP/2 by ALPN and a self-signed certificate.")
    boolean tls;
    @Option(names = "--max-body", converter = ByteSizeConverter.class, defaultValue = "35MiB",
            description = "Largest request body as sent (gzip still compressed); larger is 413 (default: "
                    + "${DEFAULT-VALUE}, Gmail's upload limit).")
    long maxBody;
    @Option(names = "--max-inflated-body", converter = ByteSizeConverter.class, defaultValue = "35MiB",
            description = "Largest request body once gzip is undone, counted while inflating; larger is 413 "
                    + "(default: ${DEFAULT-VALUE}).")
    long maxInflatedBody;
    @Option(names = "--max-header-size", converter = ByteSizeConverter.class, defaultValue = "16KiB",
            description = "Largest request line plus headers; a longer URI is 414, longer headers 431 (default: "
                    + "${DEFAULT-VALUE}).")
    long maxHeaderSize;
    @Option(names = "--cert-file",
            description = "Where --tls writes its certificate (PEM) for clients to trust (default: a temp file).")
    Path certFile;

    /** The config these options describe. */
    EmulatorConfig config() {
        EmulatorConfig.Builder b = EmulatorConfig.builder().host(host).port(port).latency(latency).jitter(jitter)
                .quotaPerMinute(quota).calendarQuotaPerMinute(calendarQuota).calendars(calendars)
                .maxConcurrent(maxConcurrent).failRate(failRate).slowRate(slowRate).slowBy(slowBy).vanishRate(vanishRate)
                .batchPartCost(batchPartCost).mailbox(mailbox).seedMessages(messages).seed(seed).token(token)
                .userEmail(user).users(users).tls(tls).certFile(certFile).tokenLifetime(tokenLifetime)
                .maxBody(maxBody).maxInflatedBody(maxInflatedBody)
                .maxHeaderSize((int) Math.min(maxHeaderSize, Integer.MAX_VALUE));
        if (handshake != null) {
            b.handshake(handshake);
        }
        if (burst != null) {
            b.burst(burst);
        }
        if (failStatus != null) {
            b.failStatuses(new LinkedHashMap<>(failStatus));
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
    }
}
