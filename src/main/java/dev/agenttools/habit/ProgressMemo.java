package dev.agenttools.habit;

import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The progress habit.list computed for each habit, reused while nothing it was computed from has changed. Why: the
 * longest streak needs every log, and reading 50 habits' two years of logs (20,000 days) and walking them takes
 * 7–8 ms a list (SQLite; 25–31 ms before {@link HabitStore#progressLogs}), where a repeated list takes under 1 ms and
 * an agent asks again after every few words. An entry is reused only when
 * <ul>
 *   <li>the store says no other connection or process wrote since ({@link HabitStore#foreignWrites}; a store that
 *       cannot tell, DynamoDB, reuses nothing),</li>
 *   <li>this registry's own writes of the habit did not touch it ({@link #forget}, called after each log),</li>
 *   <li>the habit is as it was (schedule, zone, name, archived: any update makes a new {@link Habit}) and its today is
 *       the same day.</li>
 * </ul>
 * Missing entries are computed from that habit's logs alone when few are missing (one query each), else from all.
 * Bounded: the most recently listed {@value #MAX_USERS} users are kept.
 */
final class ProgressMemo {
    static final int MAX_USERS = 1_000;
    /** Up to this many habits to compute, each is read on its own (a log touches one); past it, every log at once. */
    private static final int FEW = 8;

    private record Entry(Habit habit, LocalDate today, HabitAnswers.Status status) {
    }

    private record Memo(long foreignWrites, Map<String, Entry> byHabit) {
    }

    private final Map<String, Memo> users = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Memo> eldest) {
            return size() > MAX_USERS;
        }
    };
    /** Counts this registry's writes: a list that read before one does not keep what it computed. */
    private long ownWrites;

    /** A habit of the user was written here: its entry is no longer true. */
    synchronized void forget(String user, String habitId) {
        ownWrites++;
        Memo m = users.get(user);
        if (m != null) {
            m.byHabit().remove(habitId);
        }
    }

    /**
     * Each habit's status now, in the order of {@code habits}.
     *
     * @param foreignWrites what {@link HabitStore#foreignWrites} said before {@code habits} were read
     */
    List<HabitAnswers.Status> statuses(HabitStore store, String user, List<Habit> habits, long foreignWrites, Instant now) {
        Map<String, Entry> known;
        long writesBefore;
        synchronized (this) {
            writesBefore = ownWrites;
            Memo m = foreignWrites < 0 ? null : users.get(user);
            known = m == null || m.foreignWrites() != foreignWrites ? Map.of() : new HashMap<>(m.byHabit());
        }
        List<Habit> missing = new ArrayList<>();
        for (Habit h : habits) {
            Entry e = known.get(h.id());
            if (e == null || !e.habit().equals(h) || !e.today().equals(h.today(now))) {
                missing.add(h);
            }
        }
        Map<String, List<HabitLog>> logs = new HashMap<>();
        // a store that reuses nothing: one read of every log, not one a habit
        boolean readAll = missing.size() > FEW || foreignWrites < 0;
        if (readAll && !missing.isEmpty()) {
            LocalDate earliestToday = missing.stream().map(h -> h.today(now)).min(LocalDate::compareTo).orElseThrow();
            logs = store.progressLogs(user, earliestToday);
        } else {
            for (Habit h : missing) {
                logs.put(h.id(), store.logs(user, h.id()));
            }
        }
        Map<String, Entry> now2 = new LinkedHashMap<>();
        List<HabitAnswers.Status> out = new ArrayList<>(habits.size());
        for (Habit h : habits) {
            Entry e = known.get(h.id());
            if (missing.contains(h)) {
                LocalDate today = h.today(now);
                e = new Entry(h, today, HabitAnswers.Status.of(h, logs.getOrDefault(h.id(), List.of()), today));
            }
            now2.put(h.id(), e);
            out.add(e.status());
        }
        if (foreignWrites >= 0) {
            synchronized (this) {
                if (ownWrites == writesBefore) { // else a log came meanwhile: what was read may be older than it
                    Memo m = users.get(user);
                    Map<String, Entry> merged = m != null && m.foreignWrites() == foreignWrites ? m.byHabit() : new HashMap<>();
                    merged.putAll(now2);
                    users.put(user, new Memo(foreignWrites, merged));
                }
            }
        }
        return out;
    }
}
