package dev.agenttools.emulator.http;

import dev.agenttools.emulator.api.Counters;
import dev.agenttools.emulator.api.Faults;
import dev.agenttools.emulator.api.QuotaBucket;
import dev.agenttools.emulator.calendar.CalendarApi;
import dev.agenttools.emulator.calendar.CalendarSet;
import dev.agenttools.emulator.gmail.GmailApi;
import dev.agenttools.emulator.gmail.Mailbox;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The emulator's users: user 1 is the configured address (me@example.com by default), users 2..N are
 * {@code user2@example.com} .. {@code userN@example.com}. Each has its own mailbox and calendars (made at its first call,
 * so a thousand users cost only those that are used), its own Gmail and Calendar quota buckets, its own limit on calls
 * in flight and its own counters, as Google keeps them per user. Also the rule for bearer tokens that our OAuth endpoint
 * did not issue: each user has a fixed token, {@code emulator-user-<n>} ({@code --token} replaces user 1's), and with one
 * user and no {@code --token} any non-empty token is that user's, as before there were users. Public only for
 * {@code Emulator}, which wires it. Thread-safe.
 */
public final class Users {
    /** A fixed token's form; the number is the user's (1..N). Only RFC 6750 token characters, so no address in it. */
    private static final Pattern FIXED_TOKEN = Pattern.compile("emulator-user-([1-9][0-9]{0,8})");
    private static final Pattern NUMBERED = Pattern.compile("user([1-9][0-9]{0,8})@example\\.com");

    /** What one user's calls reach: made once, at the user's first call. */
    record Content(Mailbox mailbox, CalendarSet calendars, GmailApi gmail, CalendarApi calendar) {
    }

    /** How one user's mailbox and calendars are made (the user's number, from 1, and address). */
    public interface Seeder {
        Mailbox mailbox(int number, String address);

        CalendarSet calendars(int number, String address);
    }

    /** One user: limits, counters and (once used) content. */
    static final class User {
        final int number;
        final String address;
        final QuotaBucket gmailQuota;
        final QuotaBucket calendarQuota;
        final ConcurrencyLimit concurrency;
        final LongAdder apiCalls = new LongAdder();
        final LongAdder quotaRejections = new LongAdder();
        final LongAdder concurrencyRejections = new LongAdder();
        final LongAdder tooManyRequests = new LongAdder();
        private volatile Content content;

        User(int number, String address, QuotaBucket gmailQuota, QuotaBucket calendarQuota, ConcurrencyLimit concurrency) {
            this.number = number;
            this.address = address;
            this.gmailQuota = gmailQuota;
            this.calendarQuota = calendarQuota;
            this.concurrency = concurrency;
        }
    }

    /** A user's counters as the emulator's snapshot shows them. */
    public record Snapshot(String address, long apiCalls, long quotaRejections, long concurrencyRejections,
                           long tooManyRequests, long peakInFlight) {
    }

    private final String first;
    private final int count;
    private final String acceptedToken;
    private final int quotaPerMinute;
    private final int burst;
    private final int calendarQuotaPerMinute;
    private final int maxConcurrent;
    private final Seeder seeder;
    private final Faults faults;
    private final Counters counters;
    private final Clock clock;
    private final Map<String, User> byAddress = new ConcurrentHashMap<>();
    /** Calls in flight over all users, only for the emulator's peak (never refuses: the limits are per user). */
    final ConcurrencyLimit all = new ConcurrencyLimit(Integer.MAX_VALUE);

    /**
     * @param first         user 1's address
     * @param count         how many users, 1 or more
     * @param acceptedToken user 1's token instead of its fixed one ({@code --token}), or null
     */
    public Users(String first, int count, String acceptedToken, int quotaPerMinute, int burst, int calendarQuotaPerMinute,
                 int maxConcurrent, Seeder seeder, Faults faults, Counters counters, Clock clock) {
        this.first = first;
        this.count = count;
        this.acceptedToken = acceptedToken;
        this.quotaPerMinute = quotaPerMinute;
        this.burst = burst;
        this.calendarQuotaPerMinute = calendarQuotaPerMinute;
        this.maxConcurrent = maxConcurrent;
        this.seeder = seeder;
        this.faults = faults;
        this.counters = counters;
        this.clock = clock;
    }

    /** User {@code number}'s address (1..N). */
    public String address(int number) {
        if (number < 1 || number > count) {
            throw new IllegalArgumentException("user number must be 1.." + count + ", got " + number);
        }
        return number == 1 ? first : "user" + number + "@example.com";
    }

    /** The user's number, or 0 when {@code address} is none of ours. Case does not matter, as in Gmail. */
    public int number(String address) {
        String a = address.toLowerCase(Locale.ROOT);
        if (a.equals(first.toLowerCase(Locale.ROOT))) {
            return 1;
        }
        Matcher m = NUMBERED.matcher(a);
        if (m.matches()) {
            int n = Integer.parseInt(m.group(1));
            return n >= 2 && n <= count ? n : 0;
        }
        return 0;
    }

    /** A token that reaches {@code address}'s data without signing in: its fixed token (user 1's may be {@code --token}). */
    public String tokenFor(String address) {
        int n = number(address);
        if (n == 0) {
            throw new IllegalArgumentException("no user " + address + " in this emulator; its users are " + describe());
        }
        return n == 1 && acceptedToken != null ? acceptedToken : "emulator-user-" + n;
    }

    /** "me@example.com" or "me@example.com and user2@example.com..user5@example.com", for messages. */
    public String describe() {
        return count == 1 ? first : count == 2 ? first + " and " + address(2) : first + " and " + address(2) + ".." + address(count);
    }

    public int count() {
        return count;
    }

    /** The address of the user a token not issued by our OAuth endpoint belongs to, or null when it is nobody's. */
    String ownerOf(String token) {
        if (acceptedToken != null && acceptedToken.equals(token)) {
            return first;
        }
        Matcher m = FIXED_TOKEN.matcher(token);
        if (m.matches()) {
            int n = Integer.parseInt(m.group(1));
            if (n >= 2 && n <= count || n == 1 && acceptedToken == null) {
                return address(n);
            }
        }
        // One user and no --token: any non-empty token is that user's (the emulator's behaviour before users).
        return count == 1 && acceptedToken == null ? first : null;
    }

    /** The user behind {@code address} (one of ours), made at its first use. */
    User user(String address) {
        int n = number(address);
        if (n == 0) {
            throw new IllegalArgumentException("no user " + address);
        }
        return byAddress.computeIfAbsent(address(n), a -> new User(n, a, new QuotaBucket(quotaPerMinute, burst),
                // Calendar counts requests in a sliding minute: a burst may spend the whole minute's worth at once
                new QuotaBucket(calendarQuotaPerMinute, calendarQuotaPerMinute), new ConcurrencyLimit(maxConcurrent)));
    }

    /** The user's mailbox, calendars and APIs, seeded at the first call (outside the map's lock: seeding takes a while). */
    Content content(User user) {
        Content c = user.content;
        if (c == null) {
            synchronized (user) {
                c = user.content;
                if (c == null) {
                    Mailbox mailbox = seeder.mailbox(user.number, user.address);
                    CalendarSet calendars = seeder.calendars(user.number, user.address);
                    c = new Content(mailbox, calendars, new GmailApi(mailbox, user.gmailQuota, faults, counters, clock),
                            new CalendarApi(calendars, user.calendarQuota, clock));
                    user.content = c;
                }
            }
        }
        return c;
    }

    /** {@code address}'s mailbox, seeded now if it was not yet. */
    public Mailbox mailbox(String address) {
        return content(user(address)).mailbox();
    }

    /** {@code address}'s calendars, seeded now if they were not yet. */
    public CalendarSet calendars(String address) {
        return content(user(address)).calendars();
    }

    /** How many users have had their mailbox seeded. */
    public int seeded() {
        return (int) byAddress.values().stream().filter(u -> u.content != null).count();
    }

    /** The most calls in flight at once, over all users. */
    public int peak() {
        return all.peak();
    }

    /** Counters of each user that has been called, in user number order. */
    public List<Snapshot> snapshot() {
        List<User> used = new ArrayList<>(byAddress.values());
        used.sort(Comparator.comparingInt(u -> u.number));
        List<Snapshot> out = new ArrayList<>(used.size());
        for (User u : used) {
            out.add(new Snapshot(u.address, u.apiCalls.sum(), u.quotaRejections.sum(), u.concurrencyRejections.sum(),
                    u.tooManyRequests.sum(), u.concurrency.peak()));
        }
        return out;
    }

    /** Zeroes every user's counters and peaks (the counters endpoint's reset). */
    void reset() {
        all.resetPeak();
        for (User u : byAddress.values()) {
            u.apiCalls.reset();
            u.quotaRejections.reset();
            u.concurrencyRejections.reset();
            u.tooManyRequests.reset();
            u.concurrency.resetPeak();
        }
    }
}
