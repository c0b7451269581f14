package dev.agenttools.google;

import com.google.api.client.http.HttpRequest;
import dev.agenttools.tool.Deadline;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The one path every Google API request takes: paced to its user's limits ({@link QuotaPacer}, which learns from
 * the answers), retried ({@link Retry}), its HTTP timeouts cut to what is left of the call's deadline, and its errors
 * translated ({@link GoogleErrors}), for single requests and for each part of a batch alike. One per API client
 * configuration; thread-safe.
 */
public final class GoogleCalls {
    /** Accounts whose pacing is remembered; beyond, the least recently used start afresh. */
    static final int MAX_ACCOUNTS = 1_000;
    /**
     * The most a TCP connection to Google may take. A connect to Google's nearest front end takes tens of ms; a SYN
     * lost once is sent again after 1 s (the initial retransmission timeout of RFC 6298, which Linux, macOS and
     * Windows use), so 2 s still connects through one lost SYN with a second to spare, and a connect not made by then
     * is a black-holed address or a dead route, not a slow one. With the one retry a connection failure gets
     * ({@link Retry}) it is {@code upstream} within about 4 s, leaving an 8 s call time for a fallback; the 10 s
     * before let one attempt outlast most calls' deadlines.
     */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    static final Duration READ_TIMEOUT = Duration.ofSeconds(60);
    /** The deadline of the call whose request is being built on this thread (see {@link #limit}). */
    private static final ScopedValue<Deadline> DEADLINE = ScopedValue.newInstance();

    private final Retry retry;
    private final PerAccount<QuotaPacer> pacers;
    private final PacingShare share;
    /** The API as the shared store names its demand ({@code gmail}, {@code calendar}). */
    private final String apiKey;

    /**
     * @param api            the API called ("Gmail", "Calendar"), as errors about its quota name it
     * @param unitsPerMinute the quota each user's pacing starts from
     * @param burst          quota units that may go at once
     * @param maxInFlight    calls in flight per user to start from
     */
    public GoogleCalls(String api, int unitsPerMinute, int burst, int maxInFlight, Retry retry) {
        this(api, unitsPerMinute, burst, maxInFlight, retry, PacingShare.ALONE);
    }

    /** @param share what the instances serving each account ask of it, so that each paces at its share of its limits */
    public GoogleCalls(String api, int unitsPerMinute, int burst, int maxInFlight, Retry retry, PacingShare share) {
        this(api, unitsPerMinute, burst, maxInFlight, retry, share, PacingStats.NONE);
    }

    /** @param stats where the pacers' waits, refusals and learned limits are counted, per API */
    public GoogleCalls(String api, int unitsPerMinute, int burst, int maxInFlight, Retry retry, PacingShare share,
                       PacingStats stats) {
        QuotaPacer.check(unitsPerMinute, burst, maxInFlight); // at start-up rather than at the first call
        this.retry = retry;
        this.share = Objects.requireNonNull(share, "share");
        this.apiKey = api.toLowerCase(Locale.ROOT);
        PacingStats.Counts counts = stats.counts(api);
        this.pacers = new PerAccount<>(MAX_ACCOUNTS, a -> new QuotaPacer(api, unitsPerMinute, burst, maxInFlight, Ticker.SYSTEM, counts));
        stats.watch(api, pacers);
    }

    public Retry retry() {
        return retry;
    }

    /** Calls let in flight at once for {@code account} now (learned from the API's refusals). */
    public int maxInFlight(Account account) {
        return pacer(account).maxInFlight();
    }

    /** The pacing of {@code account}'s calls. */
    QuotaPacer pacer(Account account) {
        return pacers.get(account);
    }

    /**
     * One request costing {@code units} quota units, as {@code account}.
     *
     * @throws dev.agenttools.tool.ToolException what it finally failed with, translated
     * @throws InterruptedException              when the call is cancelled
     */
    public <T> T one(Account account, String what, int units, Deadline deadline, Retry.Call<T> request)
            throws InterruptedException {
        return outcome(account, what, units, deadline, request).orThrow();
    }

    /** {@link #one}, its failure given as an outcome (with the attempts it had) rather than thrown. */
    public <T> Outcome<T> outcome(Account account, String what, int units, Deadline deadline, Retry.Call<T> request)
            throws InterruptedException {
        Retry.Exchange<String, T> single = (pending, answers) -> answers.ok(what, request.execute());
        return each(account, what, k -> what, units, List.of(what), deadline, single).get(what);
    }

    /**
     * Requests sent together in one exchange (a batch), each costing {@code unitsEach} and taking a slot in flight,
     * as Gmail counts batch parts: each key's own outcome; the parts refused for now are sent again on their own.
     *
     * @param whatOf what one key's request is, for its errors
     * @throws InterruptedException when the call is cancelled
     */
    public <K, V> Map<K, Outcome<V>> each(Account account, String what, Function<K, String> whatOf,
                                          int unitsEach, List<K> keys, Deadline deadline, Retry.Exchange<K, V> exchange)
            throws InterruptedException {
        QuotaPacer pacer = pacer(account);
        // spread over instances: each request's quota not booked with its call is booked in the shared bucket
        QuotaPacer.SharedBucket shared = null;
        if (share != PacingShare.ALONE) { // one instance (the usual case): no digest, no lock on the call's path
            String key = shareKey(pacer, account);
            // a request of an admitted call was counted as demand when the call was admitted
            if (follow(key, pacer, pacer.holdsPromise(deadline) ? 0 : unitsEach * keys.size()).books()
                    && share.sharesBucket()) {
                shared = booking(account, key, pacer);
            }
        }
        QuotaPacer.SharedBucket bucket = shared;
        // booked once for all its attempts: a request Google refuses spent nothing there, and its retry reuses the booking
        try (var _ = bucket == null ? null : pacer.bookRequest(unitsEach * keys.size(), deadline, what, bucket)) {
            return attempts(pacer, bucket, what, whatOf, unitsEach, keys, deadline, exchange);
        }
    }

    private <K, V> Map<K, Outcome<V>> attempts(QuotaPacer pacer, QuotaPacer.SharedBucket bucket, String what,
                                               Function<K, String> whatOf, int unitsEach,
                                               List<K> keys, Deadline deadline, Retry.Exchange<K, V> exchange)
            throws InterruptedException {
        return retry.runEach(what, whatOf, deadline, keys, (pending, answers) -> {
            int cost = unitsEach * pending.size();
            try (var _ = bucket == null ? null : pacer.bookRequest(cost, deadline, what, bucket);
                 QuotaPacer.Permit permit = pacer.acquire(cost, pending.size(), deadline, what)) {
                try {
                    ScopedValue.where(DEADLINE, deadline).call(() -> {
                        exchange.send(pending, answers);
                        return null;
                    });
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    answers.failUnanswered(pending, e); // here, not only in Retry: the pacer learns from it below
                }
                learn(pacer, permit, answers, bucket);
            }
        });
    }

    /** Quota promised to one tool call ({@link #admit}); closing it gives back what the call did not spend. */
    public interface Promise extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Admits a tool call that will make requests costing {@code units} in all, as {@code account}, within
     * {@code deadline}: that quota is promised to it, so that its requests (those made with this deadline) are not
     * refused for time; or it is refused at once, before it spends any, when the quota promised and wanted ahead of
     * it could not serve it in time ({@link QuotaPacer#admit}).
     *
     * @param rounds its requests' round trips one after another (a list, then its gets: 2)
     * @throws dev.agenttools.tool.ToolException RATE_LIMITED, with when to try again
     */
    public Promise admit(Account account, int units, int rounds, Deadline deadline, String what) {
        QuotaPacer pacer = pacer(account);
        if (share != PacingShare.ALONE) {
            String key = shareKey(pacer, account);
            if (follow(key, pacer, units).books() && share.sharesBucket()) {
                // served by other instances too: its quota booked in the bucket they all spend from, exactly
                QuotaPacer.Promise booked = pacer.admitShared(units, rounds, deadline, what, booking(account, key, pacer));
                if (booked != null) {
                    return booked::close;
                }
            }
        }
        return pacer.admit(units, rounds, deadline, what)::close;
    }

    /**
     * The name the instances share the account under ({@link QuotaPacer#shareKey}): its address's once this instance
     * knows it, or once another instance that learned it left a pointer under the credential's name
     * ({@link PacingShare#moved}), so that the instances move to the address's name within a renewal of each other.
     */
    private String shareKey(QuotaPacer pacer, Account account) {
        String before = pacer.sharedAs();
        String key = pacer.shareKey(account);
        if (account.byAddress()) {
            if (!key.equals(before) && account.formerly() != null) {
                share.moved(account.formerly().shareKey(), key); // once per pacer: the others follow
            }
            return key;
        }
        String moved = before == null ? share.movedTo(key) : null;
        if (moved != null) {
            pacer.shareAs(moved);
            share.moved(key, moved); // this instance's demand leaves the credential's name too
            return moved;
        }
        return key;
    }

    /**
     * Paces the account ({@code key}: {@link Account#shareKey}) at this instance's share of its limits now, counting
     * {@code units} more asked; and has its waiting calls look at the share again while they wait
     * ({@link QuotaPacer#followShare}).
     *
     * @return the demand on its limits, this instance's and the others'
     */
    private PacingShare.Demand follow(String key, QuotaPacer pacer, int units) {
        PacingShare.Demand demand = share.demand(key, apiKey, units);
        look(key, pacer, demand);
        pacer.followShare(() -> look(key, pacer, share.demand(key, apiKey, 0)));
        return demand;
    }

    /** Paces the account's calls as {@code demand} says: at a share of its limits, and booked when it is spread. */
    private void look(String key, QuotaPacer pacer, PacingShare.Demand demand) {
        pacer.share(demand);
        pacer.sharedWith(demand.books() && share.sharesBucket() ? sharedBucket(key) : null);
    }

    /**
     * Books {@code account}'s calls in the bucket the instances share from now on: once per pacer, what was booked
     * under the name its credential had before its address was known is carried to the address's.
     */
    private QuotaPacer.SharedBucket booking(Account account, String key, QuotaPacer pacer) {
        if (account.formerly() != null && pacer.firstBookingAs(key)) {
            share.carry(account.formerly().shareKey(), key, apiKey);
        }
        return sharedBucket(key);
    }

    /** The bucket of the account's quota that the instances serving it share, as its pacer books in it. */
    private QuotaPacer.SharedBucket sharedBucket(String key) {
        return new QuotaPacer.SharedBucket() {
            @Override
            public QuotaPacer.Booked book(double units, PacingShare.Bucket bucket, long maxWaitNanos) {
                long now = System.currentTimeMillis(); // the store's time: every instance's wall clock
                PacingShare.Booking b = share.book(key, apiKey, bucket, units, now + maxWaitNanos / 1_000_000);
                return new QuotaPacer.Booked(b.outcome(), (b.atMillis() - now) * 1_000_000);
            }

            @Override
            public void giveBack(double units, PacingShare.Bucket bucket) {
                share.giveBack(key, apiKey, bucket, units);
            }

            @Override
            public void empty(PacingShare.Bucket bucket) {
                share.empty(key, apiKey, bucket);
            }
        };
    }

    /** What the answers teach the pacer: a refusal cuts (once per burst), a success wins a little back. */
    private static <K, V> void learn(QuotaPacer pacer, QuotaPacer.Permit permit, Answers<K, V> answers,
                                     QuotaPacer.SharedBucket shared) {
        boolean[] refused = {false, false};
        answers.forEachFailure((k, e) -> {
            if (GoogleErrors.rateLimited(e)) {
                refused[0] = true;
                boolean concurrency = GoogleErrors.concurrencyLimited(e);
                refused[1] |= !concurrency;
                pacer.rateLimited(permit, concurrency, GoogleErrors.retryAfter(e));
            }
        });
        if (refused[1] && shared != null) {
            shared.empty(pacer.fullBucket()); // once per exchange, however many of its parts were refused
        }
        if (!refused[0]) {
            for (int i = 0; i < answers.successes(); i++) {
                pacer.succeeded(permit);
            }
        }
    }

    /**
     * How long a request made now may wait for its answer: what is left of the deadline of the call it is made for
     * (at least 1 ms), at most {@link #READ_TIMEOUT}; outside a call, {@link #READ_TIMEOUT}.
     */
    public static Duration requestTimeout() {
        long leftMs = DEADLINE.isBound() ? Math.max(1, DEADLINE.get().remainingNanos() / 1_000_000) : Long.MAX_VALUE;
        return Duration.ofMillis(Math.min(READ_TIMEOUT.toMillis(), leftMs));
    }

    /**
     * Sets a Google client request's timeouts from what is left of the deadline of the call it is made for, and turns
     * the client's own retries off (ours are paced and deadline-bound). API clients' request initializers call this;
     * outside a call (no deadline on this thread) the plain limits apply.
     */
    public static void limit(HttpRequest request) {
        long leftMs = DEADLINE.isBound() ? Math.max(1, DEADLINE.get().remainingNanos() / 1_000_000) : Long.MAX_VALUE;
        request.setConnectTimeout((int) Math.min(CONNECT_TIMEOUT.toMillis(), leftMs));
        request.setReadTimeout((int) Math.min(READ_TIMEOUT.toMillis(), leftMs));
        request.setNumberOfRetries(0);
    }
}
