package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.Tracking;
import dev.agenttools.tracking.TrackingSettings;

import java.io.PrintWriter;
import java.time.ZoneId;

/**
 * What call, serve and mcp share: the registry configured from the environment, with call tracking when it
 * is on. Closing stops the tools' HTTP clients, flushes the pending call records and reports any that were dropped.
 */
final class ToolSession implements AutoCloseable {
    final ToolRegistry registry;
    private final CallRecorder recorder;
    private final PrintWriter err;

    private ToolSession(ToolRegistry registry, CallRecorder recorder, PrintWriter err) {
        this.registry = registry;
        this.recorder = recorder;
        this.err = err;
    }

    /**
     * @throws IllegalArgumentException for bad settings (the message names the variable)
     */
    static ToolSession open(PrintWriter err) {
        return open(err, Settings.load());
    }

    /**
     * A session on these settings (the config file and the environment merged, see {@link Settings#load()}).
     *
     * @throws IllegalArgumentException for bad settings (the message names the variable)
     */
    static ToolSession open(PrintWriter err, Settings settings) {
        return open(err, settings, null, false);
    }

    /**
     * A session on these settings whose Habit tools take {@code habitZone} as the system's zone (the resident server's
     * session for callers in that zone; see {@link CallerZone}); null: this JVM's.
     *
     * @throws IllegalArgumentException for bad settings (the message names the variable)
     */
    static ToolSession open(PrintWriter err, Settings settings, ZoneId habitZone) {
        return open(err, settings, habitZone, false);
    }

    /**
     * A session for one call in a process that then exits ({@code agent-tools call}): its call record goes to the
     * SQLite store's spool (see {@link Tracking#openOneShotRecorder}), so that closing it never waits for SQLite.
     *
     * @throws IllegalArgumentException for bad settings (the message names the variable)
     */
    static ToolSession openOneShot(PrintWriter err, Settings settings) {
        return open(err, settings, null, true);
    }

    private static ToolSession open(PrintWriter err, Settings settings, ZoneId habitZone, boolean oneShot) {
        TrackingSettings tracking = settings.tracking();
        CallRecorder recorder = null;
        try {
            recorder = oneShot ? Tracking.openOneShotRecorder(tracking, Tools.commands()) : Tracking.openRecorder(tracking, Tools.commands());
        } catch (RuntimeException e) {
            // a broken store must not stop the tools: run untracked and say so
            err.println("agent-tools: call tracking is off: " + e.getMessage());
            err.flush();
        }
        ToolSession session = new ToolSession(Tools.builder().settings(settings).habitZone(habitZone).recorder(recorder)
                .preconnect(!oneShot).build(), recorder, err);
        if (!oneShot) {
            JitWarmUp.startOnce(settings, session.registry); // a process that serves many calls: compile their paths before they come
        }
        return session;
    }

    @Override
    public void close() {
        registry.close(); // its HTTP clients' threads: a JVM exits 300 ms sooner without them
        if (recorder != null) {
            recorder.close();
            if (recorder.dropped() > 0) {
                err.println("agent-tools: " + recorder.dropped() + " call records dropped ("
                        + (recorder.lastError() == null ? "queue full" : recorder.lastError()) + "); " + recorder.written() + " written");
                err.flush();
            }
        }
    }
}
