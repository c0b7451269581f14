package dev.agenttools;

import dev.agenttools.auth.AuthException;
import dev.agenttools.auth.AuthSettings;
import dev.agenttools.auth.SignIn;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.gmail.GmailTools;
import dev.agenttools.gmail.MailText;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.google.GoogleSettings;
import dev.agenttools.google.PacingShare;
import dev.agenttools.google.PacingStats;
import dev.agenttools.google.TrustedCertificate;
import dev.agenttools.habit.HabitSettings;
import dev.agenttools.habit.HabitTools;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.CallTimeouts;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolInterceptor;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.TrackingListener;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * The front door: builds the one tool registry that the command line, the persistent process, the MCP server
 * and the benchmark all call. The registry owns what its tools share (one connection to Google: one HTTP client,
 * one stored sign-in and its refreshes) and closes it.
 */
public final class Tools {
    /**
     * The tool names as models call them (list_emails...), by command name: the MCP server's tool names, tools.list's
     * {@code name} (which the Python client's LangChain tools use), and what the benchmark and the docs show.
     */
    public static final Map<String, String> SHORT_NAMES = Map.ofEntries(
            Map.entry(GmailTools.LIST, "list_emails"), Map.entry(GmailTools.SEARCH, "search_emails"),
            Map.entry(GmailTools.GET, "get_email"), Map.entry(CalendarTools.LIST_CALENDARS, "list_calendars"),
            Map.entry(CalendarTools.LIST_EVENTS, "list_events"), Map.entry(CalendarTools.GET_EVENT, "get_event"),
            Map.entry(CalendarTools.FREE_BUSY, "free_busy"), Map.entry(HabitTools.CREATE, "create_habit"),
            Map.entry(HabitTools.UPDATE, "update_habit"), Map.entry(HabitTools.ARCHIVE, "archive_habit"),
            Map.entry(HabitTools.RESTORE, "restore_habit"), Map.entry(HabitTools.LOG, "log_habit"),
            Map.entry(HabitTools.LIST, "list_habits"), Map.entry(HabitTools.HISTORY, "habit_history"));
    private static final String NOT_SIGNED_IN =
            "not signed in to Google: run 'agent-tools auth login --client-secrets FILE' once, or pass access_token";

    private Tools() {
    }

    /** A registry to configure: the Google APIs to reach, and optionally the stored sign-in and call tracking. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A TLS context trusting this CA certificate (PEM) and nothing else, as the tools trust it with
     * {@link Builder#trustCertificate}: for a caller's own instruments against the same server (a benchmark's).
     */
    public static SSLContext trusting(Path pem) {
        return TrustedCertificate.context(pem);
    }

    /** The commands of the tools (what call statistics are kept for). */
    public static List<String> commands() {
        List<String> commands = new ArrayList<>(List.of(GmailTools.LIST, GmailTools.SEARCH, GmailTools.GET,
                CalendarTools.LIST_CALENDARS, CalendarTools.LIST_EVENTS, CalendarTools.GET_EVENT, CalendarTools.FREE_BUSY));
        commands.addAll(HabitTools.COMMANDS);
        return List.copyOf(commands);
    }

    /**
     * The address of the account these settings act as (Gmail's users.getProfile), for {@code auth status}.
     *
     * @throws ToolException when Gmail cannot be asked (not signed in, offline, refused)
     */
    public static String accountAddress(Settings settings, Duration timeout) {
        try (GoogleConnection connection = connect(settings.google(), settings.auth())) {
            return GmailTools.accountAddress(settings.gmail(), connection, timeout);
        }
    }

    /** The connection these settings describe: their CA certificate and token, else the stored sign-in under {@code auth}. */
    private static GoogleConnection connect(GoogleSettings google, AuthSettings auth) {
        return connect(google, auth, NOT_SIGNED_IN, PacingShare.ALONE, PacingStats.NONE);
    }

    private static GoogleConnection connect(GoogleSettings google, AuthSettings auth, String noToken, PacingShare share,
                                            PacingStats stats) {
        return new GoogleConnection(google, auth == null ? null : transport -> {
            try {
                return SignIn.credential(auth, transport);
            } catch (AuthException e) {
                throw new ToolException(ToolException.Kind.UNAUTHENTICATED, e.getMessage(), e);
            }
        }, noToken, share, stats);
    }

    /**
     * What the registry is built from. The tool families named (by {@link #settings}, {@link #rootUrl}, {@link #gmail}
     * or {@link #calendar}) are registered; a Gmail-only or Calendar-only registry is a builder given only that one.
     */
    public static final class Builder {
        private GoogleSettings google = GoogleSettings.DEFAULT;
        private GmailSettings gmail;
        private CalendarSettings calendar;
        private HabitSettings habit;
        private ZoneId habitZone;
        private CacheSettings cache = CacheSettings.OFF;
        private AuthSettings auth;
        private CallRecorder recorder;
        private Duration callTimeout = CallTimeouts.DEFAULT_TIMEOUT;
        private final List<CallListener> listeners = new ArrayList<>();
        private String noToken = NOT_SIGNED_IN;
        private PacingShare pacingShare = PacingShare.ALONE;
        private PacingStats pacingStats = PacingStats.NONE;
        private boolean preconnect;

        private Builder() {
        }

        /** Everything as the process's settings say (see {@link Settings#load()}): every family, the index, the sign-in. */
        public Builder settings(Settings settings) {
            this.google = settings.google();
            this.gmail = settings.gmail();
            this.calendar = settings.calendar();
            this.habit = settings.habit();
            this.cache = settings.mailIndex();
            this.auth = settings.auth();
            return this;
        }

        /** What Gmail and Calendar share: the CA certificate to trust, the token for calls that bring none. */
        public Builder google(GoogleSettings settings) {
            this.google = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The Gmail tools, reaching Gmail as these settings say. */
        public Builder gmail(GmailSettings settings) {
            this.gmail = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The Calendar tools, reaching Calendar as these settings say. */
        public Builder calendar(CalendarSettings settings) {
            this.calendar = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The Habit tools, their store and user as these settings say (by default the Google account of each call's
         * credential; see {@link HabitSettings}); null: none.
         */
        public Builder habit(HabitSettings settings) {
            this.habit = settings;
            return this;
        }

        /**
         * The zone a new habit gets when its call names none, in place of this JVM's default zone (the resident
         * server's, for a caller whose own JVM would have another); null, the default: this JVM's.
         */
        public Builder habitZone(ZoneId zone) {
            this.habitZone = zone;
            return this;
        }

        /** Where the stored sign-in lives, used when a call brings no token. */
        public Builder auth(AuthSettings settings) {
            this.auth = settings;
            return this;
        }

        /**
         * Both families at {@code url} instead (an emulator's, a benchmark's target), their other settings kept;
         * Google's published limits when none were set.
         */
        public Builder rootUrl(String url) {
            this.gmail = gmail == null ? GmailSettings.forRoot(url) : gmail.withRootUrl(url);
            this.calendar = calendar == null ? CalendarSettings.forRoot(url) : calendar.withRootUrl(url);
            return this;
        }

        /** Gmail's per-user limits the client starts pacing at: quota units a minute, burst units, calls in flight. */
        public Builder pacing(int quotaPerMinute, int burst, int maxInFlight) {
            this.gmail = family(gmail, "pacing").withPacing(quotaPerMinute, burst, maxInFlight);
            return this;
        }

        /** Calendar's per-user limits the client starts pacing at: requests a minute, burst requests, requests in flight. */
        public Builder calendarPacing(int requestsPerMinute, int burst, int maxInFlight) {
            this.calendar = family(calendar, "calendarPacing").withPacing(requestsPerMinute, burst, maxInFlight);
            return this;
        }

        private static <T> T family(T settings, String what) {
            if (settings == null) {
                throw new IllegalStateException(what + "(...) sets a family's limits: name the family first (settings, rootUrl, gmail or calendar)");
            }
            return settings;
        }

        /** The local mail index (off unless the settings or this say otherwise). */
        public Builder cache(CacheSettings settings) {
            this.cache = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The local mail index at {@code file}, on, with the default size bound. */
        public Builder mailIndex(Path file) {
            return cache(new CacheSettings(CacheSettings.Mode.AUTO, file, CacheSettings.DEFAULT_MAX_MESSAGES));
        }

        /** Trusts this CA certificate (PEM) too, such as an emulator's served with {@code --tls}. */
        public Builder trustCertificate(Path pem) {
            this.google = google.withTrustedCertificate(pem);
            return this;
        }

        /** The token for calls that bring none, unless the settings name one. */
        public Builder defaultAccessToken(String token) {
            this.google = google.accessToken() == null ? google.withAccessToken(token) : google;
            return this;
        }

        /** The deadline of a call that names no {@code timeout_ms} (default 30 s). */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * What a call that brings no token is told when there is no token or sign-in to fall back on (by default: how
         * to sign in; the HTTP service says which header carries the user's token).
         */
        public Builder noTokenMessage(String message) {
            this.noToken = Objects.requireNonNull(message, "message");
            return this;
        }

        /**
         * How many instances serve each account, when several share the accounts' Google limits (the HTTP service
         * behind a load balancer); by default this process alone.
         */
        Builder pacingShare(PacingShare share) { // internal: through ServicePacing
            this.pacingShare = Objects.requireNonNull(share, "share");
            return this;
        }

        /**
         * Where the Google APIs' pacing counts its waits, Google's rate-limit refusals and what it learned of each
         * account's limits (counts only, for the HTTP service's metrics); by default nowhere.
         */
        Builder pacingStats(PacingStats stats) { // internal: through ServicePacing
            this.pacingStats = Objects.requireNonNull(stats, "stats");
            return this;
        }

        /** Also told of every finished call, after tracking (the HTTP service's metrics). */
        public Builder listener(CallListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Opens the connections to Google's servers as soon as the registry is built, in the background, for a
         * process that serves many calls (see {@link GoogleConnection#preconnect}); off by default, as a one-shot
         * call would only race its own first request.
         */
        public Builder preconnect(boolean early) {
            this.preconnect = early;
            return this;
        }

        /** Where call records go (null: none). */
        public Builder recorder(CallRecorder callRecorder) {
            this.recorder = callRecorder;
            return this;
        }

        /**
         * The registry: tracking listens to every call as the caller saw it (fallback included); the fallback
         * router is the one interceptor. Closing it closes the connection to Google and the mail index.
         *
         * @throws IllegalStateException when no tool family was named
         */
        public ToolRegistry build() {
            if (gmail == null && calendar == null && habit == null) {
                throw new IllegalStateException("no tools to register: call settings(...), rootUrl(...), gmail(...), calendar(...) or habit(...) first");
            }
            ToolRegistry.Builder b = ToolRegistry.builder().timeouts(CallTimeouts.withDefault(callTimeout))
                    .interceptor(ToolInterceptor.fallback());
            if (recorder != null) {
                b.listener(new TrackingListener(recorder));
            }
            listeners.forEach(b::listener);
            // one connection for both APIs: one HTTP client, one stored sign-in and its refreshes
            GoogleConnection connection = connect(google, auth, noToken, pacingShare, pacingStats);
            try {
                b.resource(connection);
                if (gmail != null) {
                    GmailTools.register(b, gmail, connection, cache);
                }
                if (calendar != null) {
                    CalendarTools.register(b, calendar, connection, MailText::htmlToText);
                }
                if (habit != null) {
                    // habits are the Google account's, as its mail and calendars are (unless configured otherwise)
                    GoogleConnection.WhoIs whoIs = gmail != null ? GmailTools.whoIs(gmail, connection)
                            : calendar != null ? CalendarTools.whoIs(calendar, connection) : null;
                    HabitTools.register(b, habit, whoIs == null ? null
                            : (p, deadline) -> connection.addressOf(AccessToken.of(p), whoIs, deadline),
                            habitZone);
                }
                ToolRegistry registry = b.build();
                if (preconnect) {
                    List<String> roots = new ArrayList<>();
                    if (gmail != null) {
                        roots.add(gmail.rootUrl());
                    }
                    if (calendar != null) {
                        roots.add(calendar.rootUrl());
                    }
                    connection.preconnect(roots);
                }
                return registry;
            } catch (RuntimeException e) {
                connection.close(); // nothing else will: the registry that would own it was never made
                throw e;
            }
        }
    }
}
