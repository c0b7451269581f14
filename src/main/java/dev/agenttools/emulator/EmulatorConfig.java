package dev.agenttools.emulator;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Everything the emulator can be told, validated once. Build with {@link #builder()}; every field has the
 * default documented on its builder method.
 *
 * @param latency        the time one API call takes on the server side of the wire (one round trip)
 * @param jitter         each call's latency is drawn uniformly from {@code latency ± jitter}
 * @param handshake      extra delay on the first request of each new connection (TCP + TLS set-up)
 * @param quotaPerMinute Gmail quota units per user per minute (the token bucket's refill rate)
 * @param burst          the token bucket's capacity, in quota units
 * @param maxConcurrent  API calls in flight per user before 429 "Too many concurrent requests for user"
 * @param failRate       share of calls answered by an injected 5xx, drawn from {@code failStatuses} by weight
 * @param slowRate       share of calls that take {@code slowBy} longer
 * @param vanishRate     share of listed messages deleted right after the list answer (deleted between list and get)
 * @param batchPartCost  extra server time per part of a batch request
 * @param mailbox        {@code seed}, a path to an mbox file, or a folder of .eml files
 * @param seedMessages   how many messages the seeded mailbox holds
 * @param seed           seed of every random choice (mailbox content, jitter, faults)
 * @param token          the one accepted bearer token, or null to accept any non-empty token
 * @param certFile       where {@code tls} writes the self-signed certificate (PEM) for clients to trust
 * @param anchor         the seeded mailbox's newest date; its mail spreads over the two years before
 * @param tokenLifetime  how long access tokens from the emulated OAuth token endpoint live
 * @param maxBody        the largest request body accepted as sent on the wire (gzip still compressed), in bytes;
 *                       larger is 413
 * @param maxInflatedBody the largest request body accepted once a gzip {@code Content-Encoding} is undone, in bytes;
 *                       larger is 413 (counted while inflating, so a small gzip bomb never fills memory)
 * @param maxHeaderSize  the largest request line plus headers, in bytes; a longer URI is 414, longer headers 431
 * @param calendarQuotaPerMinute Calendar requests per user per minute; a burst may spend a whole minute's worth
 *                       (Google counts them in a sliding one-minute window)
 * @param calendars      {@code seed}, or an iCalendar file or a folder of them (Google Calendar's export)
 * @param users          how many users: user 1 is {@code userEmail}, users 2..N are {@code user2@example.com}..; each
 *                       has its own mailbox and calendars (seeded at its first call), tokens, quota and concurrency limit
 */
public record EmulatorConfig(
        String host, int port, Duration latency, Duration jitter, Duration handshake,
        int quotaPerMinute, int burst, int maxConcurrent,
        double failRate, Map<Integer, Integer> failStatuses, double slowRate, Duration slowBy, double vanishRate,
        Duration batchPartCost, String mailbox, int seedMessages, long seed, String token, String userEmail,
        boolean tls, Path certFile, Instant anchor, Duration tokenLifetime,
        long maxBody, long maxInflatedBody, int maxHeaderSize, int calendarQuotaPerMinute, String calendars, int users) {

    public static final Duration DEFAULT_LATENCY = Duration.ofMillis(150);
    public static final Duration DEFAULT_JITTER = Duration.ofMillis(10);
    public static final int DEFAULT_QUOTA_UNITS_PER_MINUTE = 15_000;
    public static final int DEFAULT_MAX_CONCURRENT = 20;
    /** Calendar's published per-user limit: 600 requests per minute per user per project. */
    public static final int DEFAULT_CALENDAR_QUOTA_PER_MINUTE = 600;
    public static final Duration DEFAULT_BATCH_PART_COST = Duration.ofMillis(1);
    public static final Duration DEFAULT_SLOW_BY = Duration.ofSeconds(2);
    public static final int DEFAULT_SEED_MESSAGES = 1_200;
    public static final String DEFAULT_USER = "me@example.com";
    /** The most users one emulator serves (each used one holds its own mailbox: see docs/emulator.md, "Many users", for memory). */
    public static final int MAX_USERS = 100_000;
    /**
     * 35 MiB (36,700,160 bytes): the largest upload the Gmail discovery document allows for messages.send, insert and
     * import ({@code mediaUpload.maxSize}), so no request a Gmail client may send is refused.
     */
    public static final long DEFAULT_MAX_BODY_BYTES = 35L * 1024 * 1024;
    /** 35 MiB once inflated, as Gmail counts the message itself, not its transfer encoding. */
    public static final long DEFAULT_MAX_INFLATED_BODY_BYTES = 35L * 1024 * 1024;
    /**
     * 16 KiB of request line and headers. Google documents no limit; its front end is commonly reported to refuse
     * about 16 KB, and the official clients move a query longer than 2,048 characters into a POST body
     * ({@code X-HTTP-Method-Override}), so real calls stay far below it.
     */
    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;

    public EmulatorConfig {
        Objects.requireNonNull(host, "host");
        require(port >= 0 && port <= 65_535, "port must be 0..65535, got " + port);
        requireNonNegative("latency", latency);
        requireNonNegative("jitter", jitter);
        requireNonNegative("handshake", handshake);
        requireNonNegative("slow-by", slowBy);
        requireNonNegative("batch-part-cost", batchPartCost);
        require(quotaPerMinute > 0, "quota must be a positive number of units per minute, got " + quotaPerMinute);
        require(burst > 0, "burst must be a positive number of units, got " + burst);
        require(calendarQuotaPerMinute > 0, "calendar-quota must be a positive number of requests per minute, got " + calendarQuotaPerMinute);
        require(maxConcurrent > 0, "max-concurrent must be at least 1, got " + maxConcurrent);
        requireRate("fail-rate", failRate);
        requireRate("slow-rate", slowRate);
        requireRate("vanish-rate", vanishRate);
        failStatuses = Map.copyOf(failStatuses);
        require(!failStatuses.isEmpty(), "fail-status must name at least one status");
        failStatuses.forEach((status, weight) -> {
            require(status >= 500 && status <= 599, "fail-status codes must be 5xx, got " + status);
            require(weight > 0, "fail-status weights must be positive, got " + status + "=" + weight);
        });
        Objects.requireNonNull(mailbox, "mailbox");
        Objects.requireNonNull(calendars, "calendars");
        require(seedMessages >= 1 && seedMessages <= 100_000, "seed-messages must be 1..100000, got " + seedMessages);
        require(token == null || !token.isBlank(), "token must not be blank");
        Objects.requireNonNull(userEmail, "userEmail");
        Objects.requireNonNull(anchor, "anchor");
        requireNonNegative("token-lifetime", tokenLifetime);
        require(maxBody >= 1024, "max-body must be at least 1024 bytes, got " + maxBody);
        require(maxInflatedBody >= 1024, "max-inflated-body must be at least 1024 bytes, got " + maxInflatedBody);
        require(maxHeaderSize >= 1024 && maxHeaderSize <= 1024 * 1024,
                "max-header-size must be 1024..1048576 bytes, got " + maxHeaderSize);
        require(users >= 1 && users <= MAX_USERS, "users must be 1.." + MAX_USERS + ", got " + users);
        Matcher numbered = NUMBERED_USER.matcher(userEmail.toLowerCase(Locale.ROOT));
        if (numbered.matches()) {
            int n = Integer.parseInt(numbered.group(1));
            require(n < 2 || n > users, "user " + userEmail + " is also the address of user " + n + " of " + users
                    + " users; give user (--user) another address");
        }
    }

    /** Users 2..N's addresses; user 1's must not be one of them. */
    private static final Pattern NUMBERED_USER = Pattern.compile("user([1-9][0-9]{0,8})@example\\.com");

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    private static void requireNonNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        require(!d.isNegative(), name + " must not be negative, got " + d);
    }

    private static void requireRate(String name, double rate) {
        require(rate >= 0 && rate <= 1, name + " must be 0..1, got " + rate);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder with the emulator's defaults: the article's conditions (150 ms a call) and Gmail's published limits. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private Duration latency = DEFAULT_LATENCY;
        private Duration jitter = DEFAULT_JITTER;
        private Duration handshake;
        private int quotaPerMinute = DEFAULT_QUOTA_UNITS_PER_MINUTE;
        private int calendarQuotaPerMinute = DEFAULT_CALENDAR_QUOTA_PER_MINUTE;
        private String calendars = "seed";
        private Integer burst;
        private int maxConcurrent = DEFAULT_MAX_CONCURRENT;
        private double failRate;
        private Map<Integer, Integer> failStatuses = new LinkedHashMap<>(Map.of(503, 3, 500, 1));
        private double slowRate;
        private Duration slowBy = DEFAULT_SLOW_BY;
        private double vanishRate;
        private Duration batchPartCost = DEFAULT_BATCH_PART_COST;
        private String mailbox = "seed";
        private int seedMessages = DEFAULT_SEED_MESSAGES;
        private long seed = 42;
        private String token;
        private String userEmail = DEFAULT_USER;
        private boolean tls;
        private Path certFile;
        private Instant anchor = LocalDate.now(ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();
        private Duration tokenLifetime = Duration.ofHours(1);
        private long maxBody = DEFAULT_MAX_BODY_BYTES;
        private long maxInflatedBody = DEFAULT_MAX_INFLATED_BODY_BYTES;
        private int maxHeaderSize = DEFAULT_MAX_HEADER_BYTES;
        private int users = 1;

        private Builder() {
        }

        /** Address to bind; default 127.0.0.1. */
        public Builder host(String v) { host = v; return this; }
        /** Port; default 0 (any free port). */
        public Builder port(int v) { port = v; return this; }
        /** Per-call latency; default 150 ms. */
        public Builder latency(Duration v) { latency = v; return this; }
        /** Latency jitter (±); default 10 ms. */
        public Builder jitter(Duration v) { jitter = v; return this; }
        /** Extra delay on a new connection's first request; default one latency. */
        public Builder handshake(Duration v) { handshake = v; return this; }
        /** Quota units per user per minute; default 15,000 (new Google projects get 6,000). */
        public Builder quotaPerMinute(int v) { quotaPerMinute = v; return this; }
        /** Token bucket capacity in units; default one second's worth of the quota. */
        public Builder burst(int v) { burst = v; return this; }
        /** Calls in flight per user; default 20. */
        public Builder maxConcurrent(int v) { maxConcurrent = v; return this; }
        /** Share of calls failing with an injected 5xx; default 0. */
        public Builder failRate(double v) { failRate = v; return this; }
        /** Injected statuses and their weights; default 503 three times as often as 500. */
        public Builder failStatuses(Map<Integer, Integer> v) { failStatuses = new LinkedHashMap<>(v); return this; }
        /** Share of slow calls; default 0. */
        public Builder slowRate(double v) { slowRate = v; return this; }
        /** How much slower a slow call is; default 2 s. */
        public Builder slowBy(Duration v) { slowBy = v; return this; }
        /** Share of listed messages that vanish before they are fetched; default 0. */
        public Builder vanishRate(double v) { vanishRate = v; return this; }
        /** Server time per batch part; default 1 ms. */
        public Builder batchPartCost(Duration v) { batchPartCost = v; return this; }
        /** {@code seed}, an mbox file or a folder of .eml files; default {@code seed}. */
        public Builder mailbox(String v) { mailbox = v; return this; }
        /** Size of the seeded mailbox; default 1,200 messages. */
        public Builder seedMessages(int v) { seedMessages = v; return this; }
        /** RNG seed; default 42. */
        public Builder seed(long v) { seed = v; return this; }
        /** The accepted bearer token; default any non-empty token. */
        public Builder token(String v) { token = v; return this; }
        /** The mailbox owner's address; default me@example.com. */
        public Builder userEmail(String v) { userEmail = v; return this; }
        /** Serve HTTPS (HTTP/2 by ALPN) with a self-signed certificate; default off. */
        public Builder tls(boolean v) { tls = v; return this; }
        /** Where to write the certificate; default a file in the temp folder. */
        public Builder certFile(Path v) { certFile = v; return this; }
        /** Newest date of the seeded mailbox; default today 00:00 UTC. */
        public Builder anchor(Instant v) { anchor = v; return this; }
        /** Lifetime of access tokens the OAuth token endpoint issues; default 1 hour, as Google's. */
        public Builder tokenLifetime(Duration v) { tokenLifetime = v; return this; }
        /** Largest request body on the wire, in bytes; default 35 MiB (Gmail's upload limit). */
        public Builder maxBody(long v) { maxBody = v; return this; }
        /** Largest request body after gzip is undone, in bytes; default 35 MiB. */
        public Builder maxInflatedBody(long v) { maxInflatedBody = v; return this; }
        /** Largest request line plus headers, in bytes; default 16 KiB. */
        public Builder maxHeaderSize(int v) { maxHeaderSize = v; return this; }
        /** {@code seed} (the default), or an .ics file or a folder of .ics files to serve as the user's calendars. */
        public Builder calendars(String v) { calendars = v; return this; }
        /** Calendar requests per user per minute; default 600, as Google's. */
        public Builder calendarQuotaPerMinute(int v) { calendarQuotaPerMinute = v; return this; }
        /**
         * How many users; default 1. User 1 is {@link #userEmail}, users 2..N are {@code user2@example.com} ..
         * {@code userN@example.com}, each with its own seeded mailbox and calendars, tokens, quota and concurrency limit.
         */
        public Builder users(int v) { users = v; return this; }

        public EmulatorConfig build() {
            Duration hs = handshake == null ? latency : handshake;
            int b = burst == null ? Math.max(1, quotaPerMinute / 60) : burst;
            return new EmulatorConfig(host, port, latency, jitter, hs, quotaPerMinute, b, maxConcurrent, failRate,
                    failStatuses, slowRate, slowBy, vanishRate, batchPartCost, mailbox, seedMessages, seed, token,
                    userEmail, tls, certFile, anchor, tokenLifetime, maxBody, maxInflatedBody, maxHeaderSize,
                    calendarQuotaPerMinute, calendars, users);
        }
    }
}
