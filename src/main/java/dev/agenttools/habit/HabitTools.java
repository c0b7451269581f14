package dev.agenttools.habit;

import dev.agenttools.tool.ToolRegistry;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

/**
 * The Habit tools on a registry: habit.create, habit.update, habit.archive, habit.restore, habit.log, habit.list and
 * habit.history, over one {@link HabitStore} opened on the first call (a registry that never calls them never
 * creates the file) and closed with the registry. Whose habits a call reaches: see {@link HabitSettings}.
 */
public final class HabitTools {
    public static final String CREATE = "habit.create";
    public static final String UPDATE = "habit.update";
    public static final String ARCHIVE = "habit.archive";
    public static final String RESTORE = "habit.restore";
    public static final String LOG = "habit.log";
    public static final String LIST = "habit.list";
    public static final String HISTORY = "habit.history";
    /** The commands, in the order tools.list shows them. */
    public static final List<String> COMMANDS = List.of(CREATE, UPDATE, ARCHIVE, RESTORE, LOG, LIST, HISTORY);
    static final int MAX_HISTORY_DAYS = 366;
    /** How far back a day can be logged: a habit's past, not the calendar's (its streaks walk every day since). */
    static final int MAX_PAST_YEARS = 10;
    static final int DEFAULT_HISTORY_DAYS = 30;
    /** More than any amount of anything a person logs in a day; keeps the numbers exact and printable. */
    static final double MAX_AMOUNT = 1_000_000_000;
    static final double MIN_NONZERO_AMOUNT = 1e-6;

    private HabitTools() {
    }

    /**
     * The Habit tools, their store at the settings' file, on the system clock; a new habit's default zone is the
     * system's.
     *
     * @param account whose Google account a call's credential is, for settings that name no user; null where there is
     *                no Google connection (such calls are then refused, saying how to name the user)
     */
    public static ToolRegistry.Builder register(ToolRegistry.Builder registry, HabitSettings settings, GoogleAccount account) {
        return register(registry, settings, account, new SystemClock(null));
    }

    /**
     * The same, with {@code zone} as the system's zone (a new habit's default): the zone of a caller whose own JVM
     * would have had another (the resident server answers each launcher's call in its caller's zone); null: this
     * JVM's.
     */
    public static ToolRegistry.Builder register(ToolRegistry.Builder registry, HabitSettings settings, GoogleAccount account,
                                                ZoneId zone) {
        return register(registry, settings, account, new SystemClock(zone));
    }

    static ToolRegistry.Builder register(ToolRegistry.Builder registry, HabitSettings settings, Clock clock) {
        return register(registry, settings, null, clock);
    }

    static ToolRegistry.Builder register(ToolRegistry.Builder registry, HabitSettings settings, GoogleAccount account, Clock clock) {
        HabitContext c = new HabitContext(new HabitContext.LazyStore(settings), settings, account, clock, new ProgressMemo());
        registry.resource(c.store());
        // one tool, one file: its name, description, schema, effect and code together
        return registry.tool(new CreateHabit(c)).tool(new UpdateHabit(c)).tool(new ArchiveHabit(c, true))
                .tool(new ArchiveHabit(c, false)).tool(new LogHabit(c)).tool(new ListHabits(c)).tool(new HabitHistory(c));
    }

    /**
     * The system clock, its zone looked up on first use: {@link ZoneId#systemDefault} loads the JDK's zone
     * rules providers, and ical4j (on the classpath for the emulator's calendars) registers one that loads SLF4J, ~20 ms
     * that a one-shot Gmail call, which never asks a habit's zone, would pay ({@code TrackingEndToEndTest} checks what
     * such a call loads). Or the zone it was given, when it was given one.
     */
    private static final class SystemClock extends Clock {
        private final ZoneId zone;

        SystemClock(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone != null ? zone : ZoneId.systemDefault();
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return Clock.system(zone);
        }

        @Override
        public Instant instant() {
            return Instant.now();
        }
    }
}
