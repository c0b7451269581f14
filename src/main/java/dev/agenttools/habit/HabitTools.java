package dev.agenttools.habit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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
    private static final String USER_ID = "user_id";
    /** The Gmail and Calendar tools' token param: here it names the account whose habits a call reaches. */
    private static final String ACCESS_TOKEN = "access_token";

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
                                                java.time.ZoneId zone) {
        return register(registry, settings, account, new SystemClock(zone));
    }

    static ToolRegistry.Builder register(ToolRegistry.Builder registry, HabitSettings settings, Clock clock) {
        return register(registry, settings, null, clock);
    }

    static ToolRegistry.Builder register(ToolRegistry.Builder registry, HabitSettings settings, GoogleAccount account, Clock clock) {
        Context c = new Context(new LazyStore(settings), settings, account, clock, new ProgressMemo());
        registry.resource(c.store);
        return registry.tool(new Create(c)).tool(new Update(c)).tool(new Archive(c, true)).tool(new Archive(c, false))
                .tool(new Log(c)).tool(new ListHabits(c)).tool(new History(c));
    }

    /**
     * The system clock, its zone looked up on first use: {@link java.time.ZoneId#systemDefault} loads the JDK's zone
     * rules providers, and ical4j (on the classpath for the emulator's calendars) registers one that loads SLF4J, ~20 ms
     * that a one-shot Gmail call, which never asks a habit's zone, would pay ({@code TrackingEndToEndTest} checks what
     * such a call loads). Or the zone it was given, when it was given one.
     */
    private static final class SystemClock extends Clock {
        private final java.time.ZoneId zone;

        SystemClock(java.time.ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public java.time.ZoneId getZone() {
            return zone != null ? zone : java.time.ZoneId.systemDefault();
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return Clock.system(zone);
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.now();
        }
    }

    /** The store, opened on first use; a failed open is tried again by the next call. */
    static final class LazyStore implements AutoCloseable {
        private final HabitSettings settings;
        private HabitStore store;
        private boolean closed;

        LazyStore(HabitSettings settings) {
            this.settings = settings;
        }

        synchronized HabitStore get() {
            if (closed) {
                throw ToolException.internal("the habit store is closed (the process is ending)", "the habit store is closed (the process is ending)", null);
            }
            if (store == null) {
                store = HabitStore.open(settings);
            }
            return store;
        }

        @Override
        public synchronized void close() {
            closed = true;
            if (store != null) {
                store.close();
            }
        }
    }

    /** What every Habit tool shares. */
    private record Context(LazyStore store, HabitSettings settings, GoogleAccount account, Clock clock, ProgressMemo memo) {
        /** Whose habits this call reaches: the user it names (a trusted backend), the configured one, or its Google account's. */
        String user(ToolCall call, Params p) throws InterruptedException {
            String given = p.string(USER_ID, null);
            if (given == null) {
                if (settings.defaultUser() != null) {
                    return settings.defaultUser();
                }
                if (account == null) {
                    throw settings.userParam()
                            ? ToolException.invalidArgument(USER_ID + " is required: this service keeps habits for many users"
                            + " and a trusted backend names each call's")
                            : new ToolException(ToolException.Kind.UNAUTHENTICATED, "the Habit tools keep each Google account's"
                            + " habits and no Google account is configured here" + (settings.manyUsers() ? ": this service"
                            + " cannot tell whose habits a call reaches" : ": set " + HabitSettings.USER_VARIABLE
                            + " to keep them under a name of your own"));
                }
                try {
                    return HabitUsers.ofGoogleAddress(account.address(p, call.deadline()));
                } catch (ToolException e) {
                    if (e.kind() != ToolException.Kind.UNAUTHENTICATED) {
                        throw e;
                    }
                    throw new ToolException(e.kind(), e.getMessage() + (settings.manyUsers()
                            ? " (this service keeps each end user's habits under the Google account of their token: send it)"
                            : " (the Habit tools keep the signed-in Google account's habits; or set " + HabitSettings.USER_VARIABLE
                            + " to keep them under a name of your own)"), e);
                }
            }
            return HabitUsers.ofUserId(given); // only where a trusted backend names users: params() refuses it elsewhere
        }

        /**
         * The call's params, each one this tool knows ({@code known}, and whose: {@link #whose}); a {@code user_id} where
         * no trusted backend names users is refused with its reason (it is no param of the tool there, so an unknown
         * param's answer does not list it).
         */
        Params params(ToolCall call, Set<String> known) {
            if (!settings.userParam() && call.params().has(USER_ID)) {
                throw ToolException.invalidArgument(USER_ID + " is not accepted here: calls reach "
                        + (settings.defaultUser() != null ? "the configured user's habits (" + HabitSettings.USER_VARIABLE + ")"
                        : "the habits of their Google account") + "; only a trusted backend names users ("
                        + HabitSettings.USER_PARAM_VARIABLE + "=on). Leave it out");
            }
            return Params.of(call, known);
        }

        /**
         * The user's habit named by the {@code habit} param: its id, else its name (any case, NFC). Unambiguous: no name
         * has the form of an id ({@link #name} refuses one), so an id never finds a habit by name, nor a name by id.
         */
        Habit habit(Params p, String user) {
            String ref = Params.name("habit", p.requiredString("habit"), Habit.MAX_NAME_CHARS);
            return store.get().find(user, ref).orElseThrow(() -> new ToolException(ToolException.Kind.NOT_FOUND,
                    "habit: no habit with id or name \"" + clip(ref) + "\" (habit.list shows them; archived ones with include_archived)"));
        }

        /** The params that say whose habits a call reaches here ({@code user_id}, {@code access_token}), and {@code more}. */
        Set<String> whose(String... more) {
            Set<String> known = new HashSet<>(List.of(more));
            if (settings.userParam()) {
                known.add(USER_ID); // elsewhere refused with its reason by params()
            }
            if (account != null) {
                known.add(ACCESS_TOKEN); // accepted as the Gmail tools accept it; with a configured user it names no one
            }
            return known;
        }

        ObjectNode properties() {
            ObjectNode p = Json.object();
            if (account != null) {
                p.putObject(ACCESS_TOKEN).put("type", "string").put("description", settings.defaultUser() == null
                        ? "An OAuth access token of the Google account whose habits these are, as the Gmail tools take it. "
                        + "Default: the configured token or the stored sign-in."
                        : "Accepted as the Gmail tools take it; the habits here are the configured user's whatever the token.");
            }
            if (settings.userParam()) {
                p.putObject(USER_ID).put("type", "string").put("minLength", 1).put("maxLength", HabitSettings.MAX_USER_CHARS)
                        .put("description", "Whose habits (the end user's id, as the trusted backend knows them; any case: "
                                + "ALICE is alice). One line, without control, bidi or zero-width characters."
                                + (settings.defaultUser() == null ? "" : " Default: the configured user's habits ("
                                + settings.defaultUser() + "), which no user_id reaches."));
            }
            return p;
        }

        ObjectNode withHabit(ObjectNode p) {
            p.putObject("habit").put("type", "string").put("minLength", 1).put("maxLength", Habit.MAX_NAME_CHARS)
                    .put("description", "The habit: its id (hab_ and 16 hex digits, a form no name has) or its name, any "
                            + "case (\"Running\" finds \"running\").");
            return p;
        }
    }

    /** {@code s}, or its first 60 code points and "..." (never half of a character). */
    private static String clip(String s) {
        return Params.codePoints(s) > 60 ? s.substring(0, s.offsetByCodePoints(0, 60)) + "..." : s;
    }

    private static ObjectNode schema(String description, ObjectNode properties, String... required) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", description);
        schema.set("properties", properties);
        ArrayNode r = schema.putArray("required");
        for (String name : required) {
            r.add(name);
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    private static final Set<String> DEFINITION = Set.of("name", "schedule", "days", "times_per_week", "target_amount",
            "target_unit", "time_zone");

    private static void describeDefinition(ObjectNode p, boolean update) {
        p.putObject("name").put("type", "string").put("minLength", 1).put("maxLength", Habit.MAX_NAME_CHARS)
                .put("description", "What the habit is, as the user says it (\"Running\", \"Read 20 pages\"): unique per user, "
                        + "whatever its case; one line, without control, bidi or zero-width characters, and not of an id's "
                        + "form (hab_ and 16 hex digits)." + (update ? " Default: unchanged." : ""));
        ObjectNode kind = p.putObject("schedule").put("type", "string");
        kind.putArray("enum").add("daily").add("weekdays").add("times_per_week");
        kind.put("description", "When it is due: every day (daily), on given days of the week (weekdays, with days), or "
                + "N days in each week, any days (times_per_week, with times_per_week)." + (update ? " Default: unchanged." : " Default: daily."));
        ObjectNode days = p.putObject("days").put("type", "array").put("minItems", 1).put("maxItems", 7).put("uniqueItems", true)
                .put("description", "For schedule weekdays: the days it is due, such as [\"mon\", \"wed\", \"fri\"].");
        days.putObject("items").put("type", "string").putArray("enum").add("mon").add("tue").add("wed").add("thu").add("fri")
                .add("sat").add("sun");
        p.putObject("times_per_week").put("type", "integer").put("minimum", 1).put("maximum", 7)
                .put("description", "For schedule times_per_week: how many days of each week (Monday to Sunday).");
        ObjectNode target = p.putObject("target_amount");
        if (update) {
            target.putArray("type").add("number").add("null");
        } else {
            target.put("type", "number");
        }
        target.put("minimum", 0).put("maximum", MAX_AMOUNT).put("description", "One day's target, such as 30 (with target_unit minutes); 0, or at least "
                        + MIN_NONZERO_AMOUNT + "." + (update ? " null clears it." : ""));
        ObjectNode unit = p.putObject("target_unit");
        if (update) {
            unit.putArray("type").add("string").add("null");
        } else {
            unit.put("type", "string");
        }
        unit.put("minLength", 1).put("maxLength", Habit.MAX_UNIT_CHARS)
                .put("description", "The target's unit, such as minutes, pages, km." + (update ? " null clears it." : ""));
        p.putObject("time_zone").put("type", "string").put("description", "The IANA time zone its days are counted in, "
                + "such as Asia/Tokyo (a log at 23:30 there is that day). " + (update
                ? "Set it when the user moves: days already logged keep their dates and streaks." : "Default: the server's zone."));
    }

    private static Schedule schedule(Params p, JsonNode params, Schedule current) {
        boolean any = params.has("schedule") || params.has("days") || params.has("times_per_week");
        if (!any && current != null) {
            return current;
        }
        String kind = p.choice("schedule", List.of("daily", "weekdays", "times_per_week"),
                params.has("days") ? "weekdays" : params.has("times_per_week") ? "times_per_week"
                        : current != null ? current.kind().wireName() : "daily");
        return switch (kind) {
            case "daily" -> {
                if (params.has("days") || params.has("times_per_week")) {
                    throw ToolException.invalidArgument("schedule daily takes neither days nor times_per_week: leave them out");
                }
                yield Schedule.DAILY;
            }
            case "weekdays" -> {
                if (params.has("times_per_week")) {
                    throw ToolException.invalidArgument("times_per_week goes with schedule times_per_week, not weekdays: leave it out");
                }
                yield Schedule.weekdays(days(params.get("days")));
            }
            default -> {
                if (params.has("days")) {
                    throw ToolException.invalidArgument("days goes with schedule weekdays, not times_per_week: leave it out");
                }
                if (!params.has("times_per_week")) {
                    throw ToolException.invalidArgument("times_per_week is required with schedule times_per_week (1..7)");
                }
                yield Schedule.timesPerWeek(p.integer("times_per_week", 1, 7, 1));
            }
        };
    }

    private static Set<DayOfWeek> days(JsonNode v) {
        if (v == null || v.isNull() || !v.isArray() || v.isEmpty() || v.size() > 7) {
            throw ToolException.invalidArgument("days must be a list of 1 to 7 weekdays such as [\"mon\", \"wed\", \"fri\"], got "
                    + (v == null ? "none" : clip(v.toString())));
        }
        Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
        for (JsonNode d : v) {
            DayOfWeek day = d.isTextual() ? Schedule.day(d.asText()) : null;
            if (day == null) {
                throw ToolException.invalidArgument("days must hold weekdays: mon, tue, wed, thu, fri, sat or sun, got " + clip(d.toString()));
            }
            days.add(day);
        }
        return days;
    }

    private static String name(Params p, String current) {
        String name = Params.name("name", current == null ? p.requiredString("name") : p.string("name", current),
                Habit.MAX_NAME_CHARS);
        if (Habit.looksLikeId(name)) {
            throw ToolException.invalidArgument("name \"" + name + "\" has the form of a habit id (hab_ and 16 hex digits),"
                    + " which the habit param would read as an id: name it otherwise");
        }
        return name;
    }

    private static Double amount(JsonNode params, String field, Double current) {
        if (!params.has(field)) {
            return current;
        }
        JsonNode v = params.get(field);
        if (v.isNull()) {
            return null;
        }
        if (!v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 0 || v.asDouble() > MAX_AMOUNT) {
            throw ToolException.invalidArgument(field + " must be a number 0.." + (long) MAX_AMOUNT + ", got " + clip(v.toString()));
        }
        // DynamoDB keeps no number nearer 0 than 1e-130: refused here alike for both stores, with room to spare
        if (v.asDouble() != 0 && v.asDouble() < MIN_NONZERO_AMOUNT) {
            throw ToolException.invalidArgument(field + " must be 0 or at least " + MIN_NONZERO_AMOUNT + ", got " + clip(v.toString()));
        }
        return v.asDouble();
    }

    private static String unit(Params p, JsonNode params, String current) {
        if (!params.has("target_unit")) {
            return current;
        }
        String unit = p.string("target_unit", null);
        return unit == null ? null : Params.name("target_unit", unit, Habit.MAX_UNIT_CHARS);
    }

    private static ZoneId zone(Params p, ZoneId current) {
        String z = p.string("time_zone", null);
        if (z == null) {
            return current;
        }
        try {
            if (ZoneId.getAvailableZoneIds().contains(z) || z.equals("UTC")) {
                return ZoneId.of(z);
            }
        } catch (DateTimeException e) {
            // said below
        }
        throw ToolException.invalidArgument("time_zone must be an IANA time zone such as Europe/Paris or Asia/Tokyo, got \""
                + clip(z) + "\"");
    }

    private static ToolResult answer(Object data, int items) {
        return new ToolResult(Json.tree(data), Backend.STORE, items);
    }

    /** habit.create */
    private record Create(Context c) implements Tool {
        @Override
        public ToolSpec spec() {
            ObjectNode p = c.properties();
            describeDefinition(p, false);
            return new ToolSpec(CREATE, "Start tracking a habit for the user: its name, when it is due (every day, given "
                    + "weekdays, or N times a week), an optional daily target (30 minutes), and the time zone its days are "
                    + "counted in. Returns the habit with its id. At most " + HabitStore.MAX_HABITS_PER_USER + " habits per user.",
                    schema("Params of habit.create", p, "name"), ToolSpec.Effect.REVERSIBLE);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Set<String> known = new HashSet<>(DEFINITION);
            known.addAll(c.whose());
            Params p = c.params(call, known);
            String user = c.user(call, p);
            HabitStore.NewHabit h = new HabitStore.NewHabit(name(p, null), schedule(p, call.params(), null),
                    amount(call.params(), "target_amount", null), unit(p, call.params(), null), zone(p, c.clock().getZone()));
            return answer(HabitAnswers.HabitView.of(c.store().get().create(user, h, c.clock().instant())), 1);
        }
    }

    /** habit.update */
    private record Update(Context c) implements Tool {
        @Override
        public ToolSpec spec() {
            ObjectNode p = c.withHabit(c.properties());
            describeDefinition(p, true);
            return new ToolSpec(UPDATE, "Change a habit: rename it, change when it is due or its target, or move it to "
                    + "another time zone (when the user moves: logged days and streaks are kept). Only the params given change.",
                    schema("Params of habit.update", p, "habit"), ToolSpec.Effect.REVERSIBLE);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Set<String> known = new HashSet<>(DEFINITION);
            known.addAll(c.whose());
            known.add("habit");
            Params p = c.params(call, known);
            String user = c.user(call, p);
            Habit h = c.habit(p, user);
            JsonNode params = call.params();
            // only what the call gives: another call's change of the rest meanwhile stands
            HabitChange change = new HabitChange(params.has("name") ? name(p, h.name()) : null,
                    params.has("schedule") || params.has("days") || params.has("times_per_week") ? schedule(p, params, h.schedule()) : null,
                    params.has("target_amount") ? Optional.ofNullable(amount(params, "target_amount", null)) : null,
                    params.has("target_unit") ? Optional.ofNullable(unit(p, params, null)) : null, zone(p, null), null);
            return answer(HabitAnswers.HabitView.of(c.store().get().update(user, h.id(), change, c.clock().instant())), 1);
        }
    }

    /** habit.archive and habit.restore */
    private record Archive(Context c, boolean archive) implements Tool {
        @Override
        public ToolSpec spec() {
            ObjectNode p = c.withHabit(c.properties());
            return archive
                    ? new ToolSpec(ARCHIVE, "Archive a habit the user stopped: it and its logs are kept, but habit.list leaves "
                    + "it out (unless include_archived). habit.restore brings it back.", schema("Params of habit.archive", p, "habit"),
                    ToolSpec.Effect.REVERSIBLE)
                    : new ToolSpec(RESTORE, "Bring back an archived habit, with its logs and streaks.",
                    schema("Params of habit.restore", p, "habit"), ToolSpec.Effect.REVERSIBLE);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = c.params(call, c.whose("habit"));
            String user = c.user(call, p);
            Habit h = c.habit(p, user);
            return answer(HabitAnswers.HabitView.of(h.archived() == archive ? h
                    : c.store().get().update(user, h.id(), HabitChange.archived(archive), c.clock().instant())), 1);
        }
    }

    /** habit.log */
    private record Log(Context c) implements Tool {
        @Override
        public ToolSpec spec() {
            ObjectNode p = c.withHabit(c.properties());
            p.putObject("date").put("type", "string").put("format", "date").put("description", "The day, YYYY-MM-DD, in the "
                    + "habit's time zone. Default: today there. Not a day in the future.");
            p.putObject("done").put("type", "boolean").put("default", true).put("description", "Done (true) or, to record "
                    + "that it was skipped, false (that breaks the streak; a day never logged is only missed once it has passed).");
            p.putObject("amount").put("type", "number").put("minimum", 0).put("maximum", MAX_AMOUNT)
                    .put("description", "How much, in the habit's target unit (45 for 45 minutes); 0, or at least "
                            + MIN_NONZERO_AMOUNT + ".");
            p.putObject("note").put("type", "string").put("maxLength", HabitLog.MAX_NOTE_CHARS).put("description", "A note on the day"
                    + " (lines and tabs allowed; no other control, bidi or zero-width characters).");
            return new ToolSpec(LOG, "Record that the user did a habit (or did not) on a day, default today in the habit's "
                    + "time zone. One record per habit and day: logging the day again replaces it, so a retried call never "
                    + "counts twice. Returns the day's record and the habit's streak and completion after it.",
                    schema("Params of habit.log", p, "habit"), ToolSpec.Effect.REVERSIBLE);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = c.params(call, c.whose("habit", "date", "done", "amount", "note"));
            String user = c.user(call, p);
            Habit h = c.habit(p, user);
            LocalDate today = h.today(c.clock().instant());
            LocalDate day = date(p, "date", today);
            if (day.isAfter(today)) {
                throw ToolException.invalidArgument("date " + day + " is in the future: today in " + h.zone().getId() + " (the habit's "
                        + "time zone) is " + today + "; a day can be logged once it has begun there");
            }
            // streaks walk every day from the first logged one: a day of year -999999999 would walk for hours
            if (day.isBefore(today.minusYears(MAX_PAST_YEARS))) {
                throw ToolException.invalidArgument("date " + day + " is more than " + MAX_PAST_YEARS + " years ago: the earliest day"
                        + " that can be logged today is " + today.minusYears(MAX_PAST_YEARS));
            }
            String note = p.string("note", null);
            note = note == null ? null : Params.text("note", note, HabitLog.MAX_NOTE_CHARS);
            HabitLog log = new HabitLog(h.id(), day, p.bool("done", true), amount(call.params(), "amount", null), note);
            HabitStore store = c.store().get();
            store.log(user, log, c.clock().instant());
            c.memo().forget(user, h.id()); // after the write: a list that read before it keeps nothing it computed
            List<HabitLog> logs = store.logs(user, h.id());
            return answer(new HabitAnswers.Logged(HabitAnswers.HabitView.of(h), day.toString(), log.done(), log.amount(), log.note(),
                    HabitAnswers.Status.of(h, logs, today)), 1);
        }
    }

    private static LocalDate date(Params p, String field, LocalDate fallback) {
        String v = p.string(field, null);
        if (v == null) {
            return fallback;
        }
        try {
            return LocalDate.parse(v.strip());
        } catch (DateTimeParseException e) {
            throw ToolException.invalidArgument(field + " must be a day as YYYY-MM-DD, such as 2026-12-01, got \"" + clip(v) + "\"");
        }
    }

    /** habit.list */
    private record ListHabits(Context c) implements Tool {
        @Override
        public ToolSpec spec() {
            ObjectNode p = c.properties();
            p.putObject("include_archived").put("type", "boolean").put("default", false).put("description", "Also list archived habits.");
            return new ToolSpec(LIST, "The user's habits with how each is going: today's state (done, not_done, pending, "
                    + "not_due), the current and longest streak (days in a row done of the days it is due, or for a times-a-week "
                    + "habit weeks in a row with its count met; today not done yet breaks nothing), and completion over the "
                    + "last 7 and 30 due days (done, scheduled, rate 0..1).", schema("Params of habit.list", p), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = c.params(call, c.whose("include_archived"));
            String user = c.user(call, p);
            HabitStore store = c.store().get();
            long foreignWrites = store.foreignWrites(); // before reading: a write after it is seen by the next list
            List<Habit> habits = store.habits(user, p.bool("include_archived", false));
            List<HabitAnswers.Status> statuses = c.memo().statuses(store, user, habits, foreignWrites, c.clock().instant());
            List<HabitAnswers.Listed> listed = new java.util.ArrayList<>(habits.size());
            for (int i = 0; i < habits.size(); i++) {
                listed.add(new HabitAnswers.Listed(HabitAnswers.HabitView.of(habits.get(i)), statuses.get(i)));
            }
            return answer(new HabitAnswers.HabitList(listed, listed.size()), listed.size());
        }
    }

    /** habit.history */
    private record History(Context c) implements Tool {
        @Override
        public ToolSpec spec() {
            ObjectNode p = c.withHabit(c.properties());
            p.putObject("from").put("type", "string").put("format", "date")
                    .put("description", "First day, YYYY-MM-DD. Default: " + (DEFAULT_HISTORY_DAYS - 1) + " days before to.");
            p.putObject("to").put("type", "string").put("format", "date")
                    .put("description", "Last day, included. Default: today in the habit's time zone.");
            return new ToolSpec(HISTORY, "A habit day by day over a range of at most " + MAX_HISTORY_DAYS + " days (\"how did I "
                    + "do this month\"): each day's state (done, not_done, missed, pending, not_due, not_logged, before_start), "
                    + "the days done off the schedule (done_off_schedule: done counts only the due days done, never more than due; a "
                    + "times-a-week habit's every day done), "
                    + "amount and note, and the days done and due in the range (due counts the days up to today: a day ahead, or today "
                    + "not logged yet, is not counted).", schema("Params of habit.history", p, "habit"), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = c.params(call, c.whose("habit", "from", "to"));
            String user = c.user(call, p);
            Habit h = c.habit(p, user);
            LocalDate today = h.today(c.clock().instant());
            LocalDate to = date(p, "to", today);
            LocalDate from = date(p, "from", to.minusDays(DEFAULT_HISTORY_DAYS - 1L));
            if (from.isAfter(to)) {
                throw ToolException.invalidArgument("from " + from + " is after to " + to + ": from is the first day, to the last");
            }
            long days = ChronoUnit.DAYS.between(from, to) + 1;
            if (days > MAX_HISTORY_DAYS) {
                throw ToolException.invalidArgument("from..to must span at most " + MAX_HISTORY_DAYS + " days, got " + days
                        + " (" + from + ".." + to + "): ask for a year at a time");
            }
            List<HabitLog> logs = c.store().get().logs(user, h.id());
            HabitAnswers.History history = HabitAnswers.History.of(h, logs, from, to, today);
            return answer(history, history.days().size());
        }
    }
}
