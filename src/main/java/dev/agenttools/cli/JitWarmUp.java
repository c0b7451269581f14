package dev.agenttools.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Compiles a call's hot paths before the user's calls need them, in a process that serves many (serve, mcp, server,
 * the launcher's resident server, the benchmark).
 *
 * <p>Why: the JVM runs a method interpreted, then lightly compiled, and compiles it fully only after thousands of
 * runs; JDK 25's AOT cache keeps loaded classes and profiles but no compiled code. An agent's process calls
 * list_emails a few times a minute, so it would stay on slow code for hours: measured over TLS against an emulator
 * process at 150 ms, the first 60 lists of a fresh process took 316–321 ms p50 and the same process after 3,000
 * lists 304.4–305.3, where the article's Go design (compiled ahead of time) took 304.1. The JVM offers no switch
 * that closes this (compile thresholds scaled by 0.05: 311–312 ms; C1 only: 310–311), so the process makes those
 * calls itself, once, at start: against an emulator in this process over TLS (the HTTP/2 and TLS code a real call
 * runs) with no latency, on a thread of its own. It is opt-in ({@value #SETTING}{@code =on}): measured through
 * {@code serve --stdio}, 1,000 rounds cost 26 s of CPU and a peak resident size of ~630 MB while they run (the heap
 * grows under their garbage; a full collection afterwards brings the process back to ~200 MB, against ~140 MB without
 * the warm-up), for 4 ms (1.3 %) off a cold list_emails(10) at 150 ms; 2,000 rounds, 40 s of CPU and ~540 MB, took 8 ms
 * off. A long-running server with memory to spare gains; an agent's own container or laptop, by default, does not pay.
 */
final class JitWarmUp {
    static final String SETTING = "AGENT_TOOLS_WARMUP";
    /** Rounds of list_emails(10) (concurrent; batch every third), get_email, and list_events every tenth. */
    static final int ROUNDS = Integer.getInteger("agenttools.warmUpRounds", 1_000);
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private JitWarmUp() {
    }

    /**
     * Whether {@code settings} turn the warm-up on ({@value #SETTING}: {@code on}, or {@code off}, the default).
     *
     * @throws IllegalArgumentException naming the setting for another value
     */
    static boolean enabled(Settings settings) {
        String value = settings.value(SETTING);
        if (value == null || value.isBlank() || value.strip().equalsIgnoreCase("off")) {
            return false;
        }
        if (value.strip().equalsIgnoreCase("on")) {
            return true;
        }
        throw new IllegalArgumentException(SETTING + " must be on or off, got " + value.strip());
    }

    /**
     * Starts the warm-up on a background thread, once per process, when the settings turn it on. It waits while
     * {@code served} answers calls (up to 50 ms a round: a user's call comes first, but a busy process needs the
     * compiled code most; the JIT's compiler threads still share the cores), and
     * starts after a moment, so that a process started for one call answers it first.
     */
    static void startOnce(Settings settings, ToolRegistry served) {
        if (enabled(settings) && STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("agent-tools-warm-up").start(() -> {
                try {
                    Thread.sleep(START_DELAY);
                    run(ROUNDS, served);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    /** How long after the process is ready the warm-up begins: the launcher's first call is answered within it. */
    private static final Duration START_DELAY = Duration.ofMillis(500);
    private static final Duration YIELD = Duration.ofMillis(10);
    private static final int MAX_YIELDS = 5;

    /**
     * Makes the calls, {@code rounds} rounds, and answers how long it took; a failure ends it early and quietly (a
     * warm-up that cannot run costs speed, never a call).
     */
    static Duration run(int rounds) {
        return run(rounds, null);
    }

    /** As above, each round waiting while {@code served} (if any) answers calls. */
    static Duration run(int rounds, ToolRegistry served) {
        long start = System.nanoTime();
        Path certificate = null;
        try (Emulator emulator = Emulator.start(EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(100_000_000).calendarQuotaPerMinute(100_000_000).maxConcurrent(1_000)
                .seedMessages(60).tls(true).build())) {
            certificate = emulator.certificate();
            String root = emulator.rootUri().toString();
            try (ToolRegistry tools = Tools.builder().trustCertificate(certificate)
                    .gmail(GmailSettings.forRoot(root).withPacing(100_000_000, 10_000_000, 1_000))
                    .calendar(CalendarSettings.forRoot(root).withPacing(100_000_000, 10_000_000, 1_000))
                    .defaultAccessToken("warm-up").build()) {
                String id = firstId(tools);
                for (int i = 0; i < rounds && !Thread.currentThread().isInterrupted(); i++) {
                    // a user's call first, but not forever: a busy process needs its code compiled the most
                    for (int waited = 0; served != null && served.inFlight() > 0 && waited < MAX_YIELDS; waited++) {
                        Thread.sleep(YIELD);
                    }
                    call(tools, "gmail.list-emails", "{\"max_results\": 10, \"cache\": \"off\", \"strategy\": \""
                            + (i % 3 == 2 ? "batch" : "concurrent") + "\"}");
                    call(tools, "gmail.get-email", "{\"message_id\": \"" + id + "\"}");
                    if (i % 10 == 0) {
                        call(tools, "calendar.list-events", "{\"strategy\": \"concurrent\"}");
                    }
                }
            }
        } catch (Exception | LinkageError e) {
            // the warm-up is an optimisation: the process serves without it
        } finally {
            deleteQuietly(certificate);
        }
        // the rounds grew the heap (the emulator's mailbox, its answers): a full collection lets G1 give it back (the
        // process measured ~200 MB resident afterwards, where it peaked at ~630 MB during the rounds)
        System.gc();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static String firstId(ToolRegistry tools) throws ToolException {
        var answer = tools.call(new ToolCall("gmail.list-emails", Json.object().put("max_results", 1).put("cache", "off"), "warm-up", null));
        return answer.data().path("emails").path(0).path("id").asText();
    }

    private static void call(ToolRegistry tools, String tool, String params) throws Exception {
        tools.call(new ToolCall(tool, (ObjectNode) Json.MAPPER.readTree(params), "warm-up", null));
    }

    private static void deleteQuietly(Path file) {
        try {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // a temporary file: left for the system to clean
        }
    }
}
