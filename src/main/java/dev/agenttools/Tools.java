package dev.agenttools;

import dev.agenttools.auth.AuthSettings;
import dev.agenttools.calendar.CalendarService;
import dev.agenttools.calendar.CalendarSettings;
import dev.agenttools.calendar.CalendarTools;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.gmail.GmailService;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.gmail.GmailTools;
import dev.agenttools.gmail.MailText;
import dev.agenttools.tool.CallTimeouts;
import dev.agenttools.tool.FallbackInterceptor;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.TrackingListener;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The front door: builds the one tool registry that the command line, the persistent process, the MCP server
 * and the benchmark all call.
 */
public final class Tools {
    /** The tool names as the benchmark and the docs show them (list_emails...), by command name. */
    public static final Map<String, String> SHORT_NAMES = Map.of(
            GmailTools.LIST, "list_emails", GmailTools.SEARCH, "search_emails", GmailTools.GET, "get_email",
            CalendarTools.LIST_CALENDARS, "list_calendars", CalendarTools.LIST_EVENTS, "list_events",
            CalendarTools.GET_EVENT, "get_event", CalendarTools.FREE_BUSY, "free_busy");

    private Tools() {
    }

    /** A registry to configure: the Gmail to reach, and optionally the stored sign-in and call tracking. */
    public static Builder builder() {
        return new Builder();
    }

    /** The commands of the tools (what call statistics are kept for). */
    public static List<String> commands() {
        return List.of(GmailTools.LIST, GmailTools.SEARCH, GmailTools.GET, CalendarTools.LIST_CALENDARS, CalendarTools.LIST_EVENTS,
                CalendarTools.GET_EVENT, CalendarTools.FREE_BUSY);
    }

    /**
     * A client's pacing: what it lets itself spend per minute, at once, and have in flight.
     *
     * @param perMinute Gmail's quota units, or Calendar's requests
     */
    public record Pacing(int perMinute, int burst, int maxInFlight) {
    }

    /** How the Calendar tools pace themselves under these settings (AGENT_TOOLS_CALENDAR_QUOTA, else Google's limits). */
    public static Pacing calendarPacing(Map<String, String> settings) {
        CalendarSettings c = CalendarSettings.fromEnvironment(settings);
        return new Pacing(c.quotaPerMinute(), c.burst(), c.maxInFlight());
    }

    /** Parts per batch request, Gmail's and Calendar's alike, unless configured. */
    public static int defaultBatchSize() {
        return GmailSettings.DEFAULT_BATCH_SIZE;
    }

    /**
     * The {@code fields} masks list_emails asks Gmail for: messages.list's, then each messages.get's (for the
     * benchmark's bare client, which must make the server do the same work as the tools).
     */
    public static List<String> gmailListFieldMasks() {
        return List.of(GmailService.LIST_FIELDS, GmailService.SUMMARY_FIELDS);
    }

    /** The {@code fields} masks list_events asks Calendar for: calendarList.list's, then each events.list's (as above). */
    public static List<String> calendarListFieldMasks() {
        return List.of(CalendarService.CALENDAR_LIST_FIELDS, CalendarService.EVENT_LIST_FIELDS);
    }

    /** HTML mail as the text get_email returns (for the benchmark's decoding figure). */
    public static String htmlToText(String html) {
        return MailText.htmlToText(html);
    }

    /** What the registry is built from. */
    public static final class Builder {
        private GmailSettings gmail;
        private CacheSettings cache = CacheSettings.OFF;
        private CalendarSettings calendar;
        private AuthSettings auth;
        private CallRecorder recorder;

        private Builder() {
        }

        public Builder gmail(GmailSettings settings) {
            this.gmail = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Calendar as these settings describe it (default: Google's, or the root URL given to {@link #rootUrl}). */
        public Builder calendar(CalendarSettings settings) {
            this.calendar = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Where the stored sign-in lives, used when a call brings no token. */
        public Builder auth(AuthSettings settings) {
            this.auth = settings;
            return this;
        }

        /**
         * Gmail and the stored sign-in as {@code settings} name them (see {@link Config#load()}: the config file
         * overlaid by the environment, read once at start-up).
         *
         * @throws IllegalArgumentException for a bad setting (the message names it)
         */
        public Builder settings(Map<String, String> settings) {
            this.calendar = CalendarSettings.fromEnvironment(settings);
            this.cache = CacheSettings.fromEnvironment(settings);
            return gmail(GmailSettings.fromEnvironment(settings)).auth(AuthSettings.from(settings, Config.configHome(settings)));
        }

        /**
         * Gmail at {@code url} instead (an emulator's, a benchmark's target), the other settings kept; Google's
         * published limits when none were set.
         */
        public Builder rootUrl(String url) {
            this.gmail = gmail == null ? GmailSettings.forRoot(url) : gmail.withRootUrl(url);
            this.calendar = calendar == null ? CalendarSettings.forRoot(url) : calendar.withRootUrl(url);
            return this;
        }

        /** The per-user limits the client starts pacing at: quota units a minute, burst units, calls in flight. */
        public Builder pacing(int quotaPerMinute, int burst, int maxInFlight) {
            this.gmail = current().withPacing(quotaPerMinute, burst, maxInFlight);
            return this;
        }

        /** Calendar's per-user limits the client starts pacing at: requests a minute, burst requests, requests in flight. */
        public Builder calendarPacing(int requestsPerMinute, int burst, int maxInFlight) {
            CalendarSettings c = calendar != null ? calendar : CalendarSettings.forRoot(current().rootUrl());
            this.calendar = c.withPacing(requestsPerMinute, burst, maxInFlight);
            return this;
        }

        /** The local mail index (off unless the settings or this say otherwise). */
        public Builder cache(CacheSettings settings) {
            this.cache = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The local mail index at {@code file}, on, with the default size bound. */
        public Builder mailIndex(java.nio.file.Path file) {
            return cache(new CacheSettings("auto", file, CacheSettings.DEFAULT_MAX_MESSAGES));
        }

        /** The token for calls that bring none, unless the settings name one. */
        public Builder defaultAccessToken(String token) {
            GmailSettings g = current();
            this.gmail = g.accessToken() == null ? g.withAccessToken(token) : g;
            return this;
        }

        private GmailSettings current() {
            if (gmail == null) {
                throw new IllegalStateException("no Gmail settings: call gmail(...), settings(...) or rootUrl(...) first");
            }
            return gmail;
        }

        /** Where call records go (null: none). */
        public Builder recorder(CallRecorder callRecorder) {
            this.recorder = callRecorder;
            return this;
        }

        /**
         * The registry: tracking listens to every call as the caller saw it (fallback included); the fallback
         * router is the one interceptor.
         */
        public ToolRegistry build() {
            if (gmail == null) {
                throw new IllegalStateException("no Gmail settings: call gmail(...) or settings(...) first");
            }
            ToolRegistry.Builder b = ToolRegistry.builder().timeouts(CallTimeouts.withDefault(gmail.timeout()))
                    .interceptor(new FallbackInterceptor());
            if (recorder != null) {
                b.listener(new TrackingListener(recorder));
            }
            // one connection for both APIs: one HTTP client, one stored sign-in and its refreshes
            GoogleConnection connection = GmailService.connect(gmail, auth);
            GmailService service = new GmailService(gmail, connection, cache);
            CalendarService calendarService = new CalendarService(calendar != null ? calendar
                    : CalendarSettings.forRoot(CalendarSettings.GOOGLE_ROOT_URL), connection);
            return CalendarTools.register(GmailTools.register(b.resource(service), service), calendarService, MailText::htmlToText)
                    .build();
        }
    }
}
