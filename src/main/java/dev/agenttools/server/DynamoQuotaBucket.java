package dev.agenttools.server;

import dev.agenttools.google.PacingShare.Booking;
import dev.agenttools.google.PacingShare.Bucket;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * One token bucket per account and API that every instance spends from, kept in DynamoDB as the generic cell rate
 * algorithm keeps it: a single number, the bucket's <em>theoretical arrival time</em> (TAT, epoch ms), the moment
 * at which everything booked so far will have been paid for at the bucket's rate. Booking {@code u} units moves it
 * {@code u / rate} later; the units are the caller's from {@code TAT - burst / rate} (now or later), so a full bucket
 * (TAT in the past) lets a burst through at once and a bucket in debt hands out later and later starts. A booking
 * that would start past the call's latest start is refused and moves nothing. Exact across instances, whatever each
 * one's demand: that is what the demand-weighted shares of {@link DynamoPacingShare} could only approach (their shares
 * follow demand a second late, and lost ~6 % of an over-asked quota to it), at the price of one conditional
 * {@code UpdateItem} per tool call of a user several instances serve (a user served by one instance never books).
 *
 * <p>Each booking is one conditional write that guesses, from the last TAT this instance saw, whether the bucket is
 * in debt ({@code ADD}, atomic under contention: no lost update, no retry) or full ({@code SET} to now plus the
 * cost); a wrong guess or a full bucket costs a consistent read and one more try. A refusal whose answer is already
 * known from the last TAT seen (it only grows, but for what calls give back) costs nothing. The attribute is
 * {@code tat_<api>} on the account's lease item. Time is each instance's wall clock: instances whose clocks differ by
 * {@code d} ms may together go {@code d} ms of quota over or under; NTP keeps that to a few ms, well inside the headroom
 * pacing keeps below Google's burst.
 *
 * <p>A store that fails (down, slow past {@link DynamoPacingShare#BOOKING_TIMEOUT}) is not asked again for
 * {@link #REST}: the callers pace at their share of the limits meanwhile, as they would alone. Thread-safe.
 */
final class DynamoQuotaBucket {
    /**
     * How long after a failure the store is left alone: calls then pace at their share, without its round trip; doubled
     * after each failure in a row up to {@link #MAX_REST}, so that a store that hangs costs a call its timeout seldom.
     */
    static final Duration REST = Duration.ofSeconds(1);
    static final Duration MAX_REST = Duration.ofSeconds(16);
    /** Tries of one booking (a wrong guess, or another instance's write between the read and ours). */
    static final int TRIES = 4;
    private static final String KEY = "account";
    /** Attributes: {@code tat_<api>}, the TAT; {@code alias_<api>}, the name the account's bookings moved to. */
    private static final String TAT = "tat_";
    private static final String ALIAS = "alias_";
    private static final Pattern API = Pattern.compile("[a-z]{1,20}");

    private final DynamoDbClient client;
    private final String table;
    private final LongSupplier clock;
    /** The last TAT seen per account and API (a lower bound of the stored one but for what calls gave back). */
    private final Map<String, Double> lastSeen = new ConcurrentHashMap<>();
    /** Names whose bookings moved (account and API, to the new name), as this instance learned them. */
    private final Map<String, String> aliases = new ConcurrentHashMap<>();
    private volatile long restUntil;
    /** Bookings that failed one after another (reset by one that did not). */
    private volatile int failuresInARow;
    private volatile String lastError;

    DynamoQuotaBucket(DynamoDbClient client, String table, LongSupplier clock) {
        this.client = client;
        this.table = table;
        this.clock = clock;
    }

    /** See {@link dev.agenttools.google.PacingShare#book}. */
    Booking book(String accountKey, String api, Bucket bucket, double units, long latestStartMillis) {
        long now = clock.getAsLong();
        if (now < restUntil || !API.matcher(api).matches() || !(units > 0)) {
            return units > 0 || now < restUntil ? Booking.unshared() : Booking.booked(now);
        }
        double msPerUnit = 1000.0 / bucket.unitsPerSecond();
        double tau = bucket.burst() * msPerUnit; // how far ahead of now the TAT may be with units still free now
        // a call costing more than the bucket holds waits for a full bucket, not forever (as QuotaPacer does)
        double cost = Math.min(units, bucket.burst()) * msPerUnit;
        String key = resolve(accountKey, api);
        Double seen = lastSeen.get(key + "/" + api);
        // the latest TAT this booking may move: its start (new TAT - tau) no later than its latest start
        double maxTat = latestStartMillis + tau - cost;
        if (seen != null && seen > maxTat && seen > now) {
            return Booking.refused(startOf(seen + cost, tau)); // known already: no round trip
        }
        try {
            Double tat = seen;
            for (int attempt = 0; attempt < TRIES; attempt++) {
                now = attempt == 0 ? now : clock.getAsLong();
                if (tat != null && tat > maxTat && tat > now) {
                    return Booking.refused(startOf(tat + cost, tau));
                }
                try {
                    double next = tat != null && tat >= now ? inDebt(key, api, cost, now, maxTat)
                            : full(key, api, now, now + cost);
                    remember(key + "/" + api, next);
                    failuresInARow = 0;
                    return Booking.booked(startOf(next, tau));
                } catch (ConditionalCheckFailedException guessedWrong) {
                    Stored stored = read(key, api);
                    if (stored.alias() != null) {
                        // the account is known by its address now: its bookings go there, this one too
                        alias(accountKey, api, stored.alias());
                        key = stored.alias();
                        tat = lastSeen.get(key + "/" + api);
                        continue;
                    }
                    tat = stored.tat();
                    if (tat != null) {
                        remember(key + "/" + api, tat);
                    }
                }
            }
            return Booking.unshared(); // contended past its tries: this call paces at its share
        } catch (RuntimeException e) {
            failed(e);
            return Booking.unshared();
        }
    }

    /** Gives back {@code units} booked and not spent: the TAT moves back by their time (a full bucket stays full). */
    void giveBack(String accountKey, String api, Bucket bucket, double units) {
        if (!(units > 0) || !API.matcher(api).matches() || clock.getAsLong() < restUntil) {
            return;
        }
        double back = Math.min(units, bucket.burst()) * 1000.0 / bucket.unitsPerSecond();
        String key = resolve(accountKey, api);
        try {
            client.updateItem(UpdateItemRequest.builder().tableName(table).key(key(key))
                    .updateExpression("ADD #t :back").conditionExpression("attribute_exists(#t)")
                    .expressionAttributeNames(Map.of("#t", TAT + api))
                    .expressionAttributeValues(Map.of(":back", number(-back))).build());
            lastSeen.computeIfPresent(key + "/" + api, (k, v) -> v - back);
        } catch (ConditionalCheckFailedException gone) {
            // nothing booked there any more (the item expired): nothing to give back
        } catch (RuntimeException e) {
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage(); // lost: the bucket is as if spent
        }
    }

    /**
     * Makes the bucket empty now (Google refused a call for the quota: the units it held were spent where no booking
     * saw them, by an instance that served the user alone a moment ago): the TAT becomes at least a full bucket's time
     * from now.
     */
    void empty(String accountKey, String api, Bucket bucket) {
        long now = clock.getAsLong();
        if (now < restUntil || !API.matcher(api).matches()) {
            return;
        }
        raise(resolve(accountKey, api), api, now + bucket.burst() * 1000.0 / bucket.unitsPerSecond());
    }

    /**
     * See {@link dev.agenttools.google.PacingShare#carry}: {@code fromKey}'s item names {@code toKey} as its alias, so
     * that bookings still made under the old name (by instances that have not learned the address yet) fail their
     * condition there and are made under the new one; and {@code toKey}'s TAT is raised to what was booked under the
     * old name.
     */
    void carry(String fromKey, String toKey, String api) {
        if (clock.getAsLong() < restUntil || !API.matcher(api).matches() || fromKey.equals(toKey)) {
            return;
        }
        try {
            Map<String, AttributeValue> from = client.updateItem(UpdateItemRequest.builder().tableName(table)
                    .key(key(fromKey)).updateExpression("SET #a = :to")
                    .expressionAttributeNames(Map.of("#a", ALIAS + api))
                    .expressionAttributeValues(Map.of(":to", AttributeValue.fromS(toKey)))
                    .returnValues(ReturnValue.ALL_NEW).build()).attributes();
            alias(fromKey, api, toKey);
            AttributeValue tat = from.get(TAT + api);
            if (tat != null && tat.n() != null) {
                raise(toKey, api, Double.parseDouble(tat.n()));
            }
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** Raises {@code key}'s TAT to at least {@code tat}. */
    private void raise(String key, String api, double tat) {
        try {
            client.updateItem(UpdateItemRequest.builder().tableName(table).key(key(key))
                    .updateExpression("SET #t = :v").conditionExpression("attribute_not_exists(#t) OR #t < :v")
                    .expressionAttributeNames(Map.of("#t", TAT + api))
                    .expressionAttributeValues(Map.of(":v", number(tat))).build());
            remember(key + "/" + api, tat);
        } catch (ConditionalCheckFailedException later) {
            // booked past it already
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** The name the account's bookings go under: its address's once some instance has learned it. */
    private String resolve(String accountKey, String api) {
        return aliases.getOrDefault(accountKey + "/" + api, accountKey);
    }

    private void alias(String accountKey, String api, String to) {
        if (aliases.size() >= DynamoPacingShare.MAX_ACCOUNTS) {
            aliases.clear(); // bounded: what is forgotten costs a failed write and a read, once each
        }
        aliases.put(accountKey + "/" + api, to);
    }

    private void failed(RuntimeException e) {
        long rest = Math.min(MAX_REST.toMillis(), REST.toMillis() << Math.min(10, failuresInARow++));
        restUntil = clock.getAsLong() + rest;
        lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    private void remember(String seenKey, double tat) {
        if (lastSeen.size() >= DynamoPacingShare.MAX_ACCOUNTS && !lastSeen.containsKey(seenKey)) {
            lastSeen.clear(); // bounded: what is forgotten costs one wrong guess, a read, each
        }
        lastSeen.put(seenKey, tat);
    }

    /** Why the last booking failed, or null. */
    String lastError() {
        return lastError;
    }

    /** When units booked up to {@code tat} are free: {@code tau} before it (epoch ms, rounded up). */
    private static long startOf(double tat, double tau) {
        return (long) Math.ceil(tat - tau);
    }

    /** The bucket is in debt (TAT at or after now): its TAT moves by the cost, unless that starts the call too late. */
    private double inDebt(String key, String api, double cost, long now, double maxTat) {
        Map<String, AttributeValue> after = client.updateItem(UpdateItemRequest.builder().tableName(table)
                .key(key(key)).updateExpression("ADD #t :cost")
                .conditionExpression("#t >= :now AND #t <= :max AND attribute_not_exists(#a)")
                .expressionAttributeNames(Map.of("#t", TAT + api, "#a", ALIAS + api))
                .expressionAttributeValues(Map.of(":cost", number(cost), ":now", number(now), ":max", number(maxTat)))
                .returnValues(ReturnValue.UPDATED_NEW).build()).attributes();
        return Double.parseDouble(after.get(TAT + api).n());
    }

    /** The bucket is full (no TAT, or one past): its TAT becomes now plus the cost. */
    private double full(String key, String api, long now, double tat) {
        client.updateItem(UpdateItemRequest.builder().tableName(table).key(key(key))
                .updateExpression("SET #t = :tat")
                .conditionExpression("(attribute_not_exists(#t) OR #t < :now) AND attribute_not_exists(#a)")
                .expressionAttributeNames(Map.of("#t", TAT + api, "#a", ALIAS + api))
                .expressionAttributeValues(Map.of(":tat", number(tat), ":now", number(now))).build());
        return tat;
    }

    /** What the item holds for one API: its TAT and its alias, each null when it has none. */
    private record Stored(Double tat, String alias) {
    }

    private Stored read(String key, String api) {
        Map<String, AttributeValue> item = client.getItem(GetItemRequest.builder().tableName(table).key(key(key))
                .consistentRead(true).projectionExpression("#t, #a")
                .expressionAttributeNames(Map.of("#t", TAT + api, "#a", ALIAS + api)).build()).item();
        AttributeValue tat = item == null ? null : item.get(TAT + api);
        AttributeValue alias = item == null ? null : item.get(ALIAS + api);
        return new Stored(tat == null || tat.n() == null ? null : Double.parseDouble(tat.n()),
                alias == null ? null : alias.s());
    }

    private static Map<String, AttributeValue> key(String accountKey) {
        return Map.of(KEY, AttributeValue.fromS(accountKey));
    }

    /** Milliseconds to the microsecond, in plain notation (DynamoDB numbers take no exponent from us). */
    private static AttributeValue number(double ms) {
        return AttributeValue.fromN(new BigDecimal(String.format(Locale.ROOT, "%.3f", ms)).toPlainString());
    }
}
