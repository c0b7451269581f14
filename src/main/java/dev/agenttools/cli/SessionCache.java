package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.tool.CallTimeouts;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The resident server's tool sessions, one per distinct configuration its callers bring (root URL, token,
 * tracking..., and the caller's zone, which the Habit tools take as the system's), so that each keeps its warm HTTP/2 connections and pacing across calls. Kept in memory only (the
 * key holds the caller's token); the least recently used beyond {@link #MAX_SESSIONS} is dropped, and closed once
 * the calls it may be running are over. Thread-safe.
 */
final class SessionCache implements AutoCloseable {
    static final int MAX_SESSIONS = 8;

    /** A session and what opening it printed (a tracking store that failed), which every call of it repeats on stderr. */
    record Entry(ToolSession session, String warnings) {
    }

    /** A session's key: the caller's settings, and the zone its Habit tools take as the system's. */
    private record Key(Map<String, String> settings, ZoneId zone) {
    }

    private final LinkedHashMap<Key, Entry> sessions = new LinkedHashMap<>(16, 0.75f, true);

    /**
     * The session for these settings and zone (the Habit tools' system zone; null: this JVM's), opened on first use.
     *
     * @throws IllegalArgumentException for bad settings, as {@link ToolSession#open} (nothing is kept then)
     */
    synchronized Entry get(Map<String, String> settings, ZoneId zone) {
        Key key = new Key(Map.copyOf(settings), zone);
        Entry entry = sessions.get(key);
        if (entry == null) {
            StringWriter warnings = new StringWriter();
            PrintWriter err = new PrintWriter(warnings);
            entry = new Entry(ToolSession.open(err, Settings.from(settings), zone), "");
            err.flush();
            entry = new Entry(entry.session(), warnings.toString());
            sessions.put(key, entry);
            if (sessions.size() > MAX_SESSIONS) {
                var eldest = sessions.entrySet().iterator();
                Entry evicted = eldest.next().getValue();
                eldest.remove();
                // closed once any call it may still be running has had its longest timeout
                Thread.ofVirtual().name("session-close").start(() -> {
                    try {
                        Thread.sleep(CallTimeouts.MAX.plusSeconds(10));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    evicted.session().close();
                });
            }
        }
        return entry;
    }

    @Override
    public synchronized void close() {
        sessions.values().forEach(e -> e.session().close());
        sessions.clear();
    }
}
