package dev.agenttools.cli;

import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code agent-tools emulator}: serves the Gmail API emulator until stopped. */
@Command(name = "emulator", mixinStandardHelpOptions = true,
        description = {"Serve a local Gmail API v1 and Calendar API v3 with latency, handshake, quota, concurrency and fault models.",
                "The real REST surface over a seeded or loaded mailbox. Prints 'emulator listening on URL' on stdout; give "
                        + "that URL to a client as its root URL."})
final class EmulatorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--host", description = "Address to bind (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
    String host;
    @Option(names = "--port", description = "Port; 0 takes any free port (default: ${DEFAULT-VALUE}).", defaultValue = "0")
    int port;
    @Option(names = "--latency", description = "Server time per call (default: ${DEFAULT-VALUE}).", defaultValue = "150ms")
    Duration latency;
    @Option(names = "--jitter", description = "Latency varies by up to ± this (default: ${DEFAULT-VALUE}).", defaultValue = "10ms")
    Duration jitter;
    @Option(names = "--handshake", description = "Extra delay on a new connection's first request (default: one latency).")
    Duration handshake;
    @Option(names = "--quota", description = "Quota units per user per minute (default: ${DEFAULT-VALUE}; new Google projects get 6000).",
            defaultValue = "15000")
    int quota;
    @Option(names = "--calendar-quota", description = "Calendar requests per user per minute (default: ${DEFAULT-VALUE}, as Google's).",
            defaultValue = "600")
    int calendarQuota;
    @Option(names = "--calendars", description = "'seed', or an .ics file or a folder of them (Google Calendar's export) "
            + "to serve as the user's calendars (default: ${DEFAULT-VALUE}).", defaultValue = "seed")
    String calendars;
    @Option(names = "--burst", description = "Quota bucket size in units (default: one second's worth).")
    Integer burst;
    @Option(names = "--max-concurrent", description = "Gmail calls in flight per user before 429 (Calendar has no such limit; default: ${DEFAULT-VALUE}).",
            defaultValue = "20")
    int maxConcurrent;
    @Option(names = "--fail-rate", description = "Share of calls failing with an injected 5xx, 0..1 (default: ${DEFAULT-VALUE}).",
            defaultValue = "0")
    double failRate;
    @Option(names = "--fail-status", split = ",", description = "Injected statuses and weights, e.g. 503=3,500=1 (the default).")
    Map<Integer, Integer> failStatus;
    @Option(names = "--slow-rate", description = "Share of slow calls, 0..1 (default: ${DEFAULT-VALUE}).", defaultValue = "0")
    double slowRate;
    @Option(names = "--slow-by", description = "How much longer a slow call takes (default: ${DEFAULT-VALUE}).", defaultValue = "2s")
    Duration slowBy;
    @Option(names = "--vanish-rate", description = "Share of listed messages deleted before they are fetched, 0..1 (default: ${DEFAULT-VALUE}).",
            defaultValue = "0")
    double vanishRate;
    @Option(names = "--batch-part-cost", description = "Extra server time per batch part (default: ${DEFAULT-VALUE}).",
            defaultValue = "1ms")
    Duration batchPartCost;
    @Option(names = "--mailbox", description = "'seed', an mbox file (e.g. from Google Takeout) or a folder of .eml files (default: ${DEFAULT-VALUE}).",
            defaultValue = "seed")
    String mailbox;
    @Option(names = "--messages", description = "Messages in the seeded mailbox (default: ${DEFAULT-VALUE}).", defaultValue = "1200")
    int messages;
    @Option(names = "--seed", description = "RNG seed for mailbox content, jitter and faults (default: ${DEFAULT-VALUE}).",
            defaultValue = "42")
    long seed;
    @Option(names = "--token", description = "The one accepted bearer token (default: any non-empty token).")
    String token;
    @Option(names = "--user", description = "The mailbox owner's address (default: ${DEFAULT-VALUE}).", defaultValue = "me@example.com")
    String user;
    @Option(names = "--users", defaultValue = "1", description = "How many users: user 1 is --user, users 2..N are "
            + "user2@example.com..userN@example.com, each with its own mailbox and calendars (seeded at its first call), "
            + "quota, concurrency limit and counters; user n's fixed token is emulator-user-n (user 1's is --token when "
            + "given), and the OAuth sign-in picks the user its login_hint names (default: ${DEFAULT-VALUE}).")
    int users;
    @Option(names = "--token-lifetime", description = "Lifetime of access tokens from the emulated OAuth endpoints (default: ${DEFAULT-VALUE}).",
            defaultValue = "1h")
    Duration tokenLifetime;
    @Option(names = "--tls", description = "Serve HTTPS with HTTP/2 by ALPN and a self-signed certificate.")
    boolean tls;
    @Option(names = "--max-body", converter = ByteSizeConverter.class, defaultValue = "35MiB",
            description = "Largest request body as sent (gzip still compressed); larger is 413 (default: ${DEFAULT-VALUE}, Gmail's upload limit).")
    long maxBody;
    @Option(names = "--max-inflated-body", converter = ByteSizeConverter.class, defaultValue = "35MiB",
            description = "Largest request body once gzip is undone, counted while inflating; larger is 413 (default: ${DEFAULT-VALUE}).")
    long maxInflatedBody;
    @Option(names = "--max-header-size", converter = ByteSizeConverter.class, defaultValue = "16KiB",
            description = "Largest request line plus headers; a longer URI is 414, longer headers 431 (default: ${DEFAULT-VALUE}).")
    long maxHeaderSize;
    @Option(names = "--cert-file", description = "Where --tls writes its certificate (PEM) for clients to trust (default: a temp file).")
    Path certFile;

    @Override
    public Integer call() throws InterruptedException {
        EmulatorConfig.Builder b = EmulatorConfig.builder().host(host).port(port).latency(latency).jitter(jitter)
                .quotaPerMinute(quota).calendarQuotaPerMinute(calendarQuota).calendars(calendars).maxConcurrent(maxConcurrent).failRate(failRate).slowRate(slowRate)
                .slowBy(slowBy).vanishRate(vanishRate).batchPartCost(batchPartCost).mailbox(mailbox)
                .seedMessages(messages).seed(seed).token(token).userEmail(user).tls(tls).certFile(certFile).tokenLifetime(tokenLifetime).users(users)
                .maxBody(maxBody).maxInflatedBody(maxInflatedBody).maxHeaderSize((int) Math.min(maxHeaderSize, Integer.MAX_VALUE));
        if (handshake != null) {
            b.handshake(handshake);
        }
        if (burst != null) {
            b.burst(burst);
        }
        if (failStatus != null) {
            b.failStatuses(new LinkedHashMap<>(failStatus));
        }
        EmulatorConfig config;
        try {
            config = b.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
        Emulator emulator = Emulator.start(config); // a mailbox it cannot load or a port it cannot bind: 1
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            emulator.close();
            stopped.countDown();
        }, "emulator-shutdown"));
        var err = spec.commandLine().getErr();
        err.println("emulator: " + emulator.mailboxSummary() + "; latency " + latency.toMillis() + "ms ±"
                + jitter.toMillis() + "ms, quota " + quota + " units/min, max " + maxConcurrent + " concurrent"
                + (config.tls() ? "; certificate " + emulator.certificate() : ""));
        if (users > 1) {
            // the tokens are the emulator's own stand-ins, documented in docs/emulator.md: no secret is printed
            err.println("emulator: user n's token is emulator-user-n" + (token != null ? " (user 1's is --token)" : "")
                    + "; an OAuth sign-in signs in the user its login_hint names");
        }
        err.println("emulator: counters at " + emulator.rootUri() + "emulator/v1/counters; Ctrl-C stops");
        err.flush();
        var out = spec.commandLine().getOut();
        out.println("emulator listening on " + emulator.rootUri());
        out.flush();
        stopped.await();
        return 0;
    }
}
