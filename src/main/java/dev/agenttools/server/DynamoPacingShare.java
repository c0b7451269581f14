package dev.agenttools.server;

import dev.agenttools.google.PacingShare;
import dev.agenttools.store.DynamoClients;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * What the instances serving each account ask of its limits, kept in DynamoDB as leases that carry demand: an
 * instance that served an account in the last {@link #LEASE} renews its lease on that account's item, one
 * {@code UpdateItem} that writes its own expiry and its demand on each API (quota units a second asked here, decayed
 * over {@link #DEMAND_WINDOW}: long enough that a user's few calls a second do not make its shares jitter) and returns the item, whose live leases are the others' demand
 * ({@link #demand} answers from memory). Each instance then paces the account at a share that follows demand
 * ({@code QuotaPacer.fraction}): the instance that serves a user alone has all of its quota; a user spread by round
 * robin is split evenly; a user whose calls mostly reach one instance gets most of its quota there.
 *
 * <p>The leases say whether other instances serve a user; a user they do books each tool call's quota in a bucket kept
 * on the same item ({@link #book}, {@link DynamoQuotaBucket}), exact whatever the spread of its calls, at one write on
 * the call's path. The shares that follow demand are for the limit on calls in flight, and for the quota only while
 * the store does not answer: they follow demand a second late, which measured ~6 % of an over-asked quota lost.
 *
 * <p>A user new to an instance is paced there as if this instance alone served it, at once: its first call waits for
 * no write, so that neither a new user nor a DynamoDB that is down costs a call time. The lease's first renewal goes
 * in the background, and a new lease is renewed again after {@link #EARLY_RENEWALS}; so that instances that start
 * serving a user together find each other within {@code EARLY_RENEWALS}' first step; until then its calls book in the
 * shared bucket ({@link Demand#provisional}), so that such instances do not each spend the user's whole burst. The
 * item's key is a digest
 * ({@code acct-} and 16 hex digits), never an address or a token; {@code expires_at} lets DynamoDB's TTL delete items
 * of accounts no instance serves any more. Thread-safe.
 */
public final class DynamoPacingShare implements PacingShare, AutoCloseable {
    static final Duration RENEW = Duration.ofSeconds(5);
    static final Duration LEASE = Duration.ofSeconds(15);
    /** When a new lease is renewed again, after its first renewal: others that started with it are counted by then. */
    static final List<Duration> EARLY_RENEWALS = List.of(Duration.ofMillis(250), Duration.ofSeconds(1));
    /** How often the renewer looks for leases due. */
    static final Duration TICK = Duration.ofMillis(250);
    /** The soonest a lease is renewed again because its demand moved. */
    static final Duration SOONEST = Duration.ofSeconds(1);
    /** How far an instance's demand moves (a share of the larger of then and now) before it tells the others early. */
    static final double DEMAND_MOVE = 0.5;
    /** Over how long demand is measured: an exponential decay with this time constant. */
    static final Duration DEMAND_WINDOW = Duration.ofSeconds(4);
    /** Demand below this (units a second: 3 a minute) is none: an instance asking so little is not counted. */
    static final double NO_DEMAND = 0.05;
    /** Accounts whose lease this instance keeps at most (past it the least recently seen are let go). */
    static final int MAX_ACCOUNTS = 100_000;
    /** APIs whose demand a lease carries at most (a store is not given names without end). */
    static final int MAX_APIS = 4;
    /**
     * The longest a booking in the shared bucket ({@link #book}) may take, on the call's path: a store slower than
     * this is taken as down for a moment, and the call paces at its share. A DynamoDB write in the same region takes
     * a few ms.
     */
    public static final Duration BOOKING_TIMEOUT = Duration.ofMillis(300);
    private static final String KEY = "account";
    /** The name an account moved to ({@link #moved}), on its former name's item. */
    private static final String MOVED = "moved_to";
    /** What an account's name is ({@code Account#shareKey}): a pointer read from the store is used only if it is one. */
    private static final Pattern ACCOUNT_KEY = Pattern.compile("acct-[0-9a-f]{16}");
    private static final String PREFIX = "i_";
    /** Demand attributes: {@code d_<api>_<instance>}, the instance's name beginning {@link #PREFIX}. */
    private static final String DEMAND = "d_";

    private final DynamoDbClient client;
    private final String table;
    private final DynamoQuotaBucket bucket;
    private final String instance = PREFIX + UUID.randomUUID().toString().replace("-", "");
    private final LongSupplier clock;
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final Thread renewer;
    /** Where a new lease's first renewal runs: never on the call's thread. */
    private final Executor firstRenewals;
    private volatile String lastError;

    /** What the other instances ask of one account at one API, as the last renewal read it. */
    record Others(double demand, int instances) {
        static final Others NONE = new Others(0, 0);
    }

    /** This instance's demand on one account at one API: a rate of quota units, decayed over {@link #DEMAND_WINDOW}. */
    static final class Meter {
        private double rate;
        private long at;
        /** Adds {@code units} asked at {@code now} (ms) and answers the rate then. */
        synchronized double add(long now, int units) {
            rate = rateAt(now) + units * 1000.0 / DEMAND_WINDOW.toMillis();
            at = now;
            return rate;
        }

        synchronized double rateAt(long now) {
            long dt = Math.max(0, now - at);
            return rate * Math.exp(-(double) dt / DEMAND_WINDOW.toMillis());
        }
    }

    /** What this instance knows of one account. */
    private static final class Lease {
        final Map<String, Meter> meters = new ConcurrentHashMap<>();
        volatile long seenAt;
        volatile long renewedAt;
        volatile int renewals;
        /** Whether a renewal is under way (the first, in the background, or the renewer's). */
        final AtomicBoolean renewing = new AtomicBoolean();
        /** The others' demand by API, as the last renewal read it. */
        volatile Map<String, Others> others = Map.of();
        /** This instance's demand by API as the last renewal wrote it, when, and as the one before wrote it. */
        volatile Map<String, Double> told = Map.of();
        volatile long toldAt;
        volatile Map<String, Double> toldBefore = Map.of();
        /** Other instances' leases found expired at the last renewal: their attributes, removed at the next. */
        volatile List<String> stale = List.of();
        /** The name the account moved to ({@link #moved}), as the last renewal read it; null if none. */
        volatile String movedTo;

        Meter meter(String api) {
            Meter m = meters.get(api);
            if (m == null && meters.size() < MAX_APIS) {
                m = meters.computeIfAbsent(api, a -> new Meter());
            }
            return m;
        }
    }

    /**
     * The share kept in {@code table} at DynamoDB's {@code endpoint} (null: AWS's, where the table is made beforehand;
     * a local DynamoDB's is made when missing).
     */
    public static DynamoPacingShare open(URI endpoint, String region, String table) {
        return open(endpoint, region, table, false);
    }

    /**
     * @param bucket each user several instances serve books its calls' quota in a bucket they share ({@link #book}),
     *               rather than each instance pacing at its share of it
     */
    public static DynamoPacingShare open(URI endpoint, String region, String table, boolean bucket) {
        // bookings in the shared bucket are on the calls' path: one retry, and a store slower than this is skipped
        var bookings = ClientOverrideConfiguration.builder().retryStrategy(b -> b.maxAttempts(2))
                .apiCallTimeout(BOOKING_TIMEOUT).build();
        DynamoPacingShare share = new DynamoPacingShare(DynamoClients.client(endpoint, region),
                DynamoClients.client(endpoint, region, bookings), table, endpoint != null);
        share.bucketOn = bucket;
        return share;
    }

    /** Whether users several instances serve book in the shared bucket (tests: yes). */
    private volatile boolean bucketOn = true;

    @Override
    public boolean sharesBucket() {
        return bucketOn;
    }

    /**
     * @param createTable make the table when it is missing (a local DynamoDB, tests); in AWS, make it beforehand
     */
    public DynamoPacingShare(DynamoDbClient client, String table, boolean createTable) {
        this(client, client, table, createTable);
    }

    /**
     * @param bookingClient the client bookings in the shared bucket use, on the calls' path: retries and time bounded
     *                      to {@link #BOOKING_TIMEOUT}
     */
    public DynamoPacingShare(DynamoDbClient client, DynamoDbClient bookingClient, String table, boolean createTable) {
        this(client, bookingClient, table, createTable, System::currentTimeMillis, true, r -> Thread.ofVirtual().start(r));
    }

    /**
     * @param renewInBackground renew leases every {@link #TICK} on a thread of its own (tests drive renewals instead)
     * @param firstRenewals     where a new lease's first renewal runs (tests: nowhere, or threads of their own)
     */
    DynamoPacingShare(DynamoDbClient client, String table, boolean createTable, LongSupplier clock, boolean renewInBackground,
                      Executor firstRenewals) {
        this(client, client, table, createTable, clock, renewInBackground, firstRenewals);
    }

    private DynamoPacingShare(DynamoDbClient client, DynamoDbClient bookingClient, String table, boolean createTable,
                              LongSupplier clock, boolean renewInBackground, Executor firstRenewals) {
        this.client = client;
        this.bucket = new DynamoQuotaBucket(bookingClient, table, clock);
        this.table = table;
        this.clock = clock;
        this.firstRenewals = firstRenewals;
        if (createTable) {
            createIfMissing();
        } else {
            client.describeTable(DescribeTableRequest.builder().tableName(table).build()); // fails now, not at a call
        }
        this.renewer = renewInBackground ? Thread.ofPlatform().daemon().name("pacing-share").start(this::renewEvery) : null;
    }

    @Override
    public Demand demand(String accountKey, String api, int unitsAsked) {
        long now = clock.getAsLong();
        Lease lease = leases.get(accountKey);
        if (lease == null) {
            if (leases.size() >= MAX_ACCOUNTS) {
                return Demand.ALONE;
            }
            Lease fresh = new Lease();
            lease = leases.putIfAbsent(accountKey, fresh);
            if (lease == null) {
                lease = fresh;
                fresh.seenAt = now;
                // counted by the others (and counting them) soon, in the background: the call waits for no write
                firstRenewals.execute(() -> {
                    if (fresh.renewing.compareAndSet(false, true)) {
                        renew(accountKey, fresh);
                    }
                });
            }
        }
        lease.seenAt = now;
        Meter meter = lease.meter(api);
        double own = meter == null ? 0 : unitsAsked > 0 ? meter.add(now, unitsAsked) : meter.rateAt(now);
        Others others = lease.others.getOrDefault(api, Others.NONE);
        if (others.instances() == 0) {
            // alone: the whole of the limits, whatever it asks; booked while others may not have been seen yet
            return new Demand(own, 0, 0, bucketOn && lease.renewals <= EARLY_RENEWALS.size());
        }
        return new Demand(ownForShare(lease, api, now), others.demand(), others.instances());
    }

    /**
     * This instance's demand as its share should weigh it: as the others weigh it, so that the shares add up to the
     * whole. They read what it told at their own renewals, each within a {@link #SOONEST} of its telling (each renews,
     * and reads, that often while it serves the user too): so for a {@code SOONEST} after it tells a new value, it
     * weighs itself at the one before, whether demand rose or fell, and at the new one after. Weighing a rise late
     * and a fall at once (as it first did) left the shares short of the whole every time demand moved, which a
     * user's calls arriving at random make it do all the time: ~4 % of the quota of a user over it went unspent.
     */
    private static double ownForShare(Lease lease, String api, long now) {
        if (now - lease.toldAt >= SOONEST.toMillis()) {
            return lease.told.getOrDefault(api, 0.0);
        }
        return lease.toldBefore.getOrDefault(api, 0.0);
    }

    /**
     * Books the units in the account's bucket that all instances share ({@link DynamoQuotaBucket}): one conditional
     * write, on the call's path, for a user other instances serve too; a user served here alone never books.
     */
    @Override
    public Booking book(String accountKey, String api, Bucket bucket, double units, long latestStartMillis) {
        if (lastError != null) {
            return Booking.unshared(); // the leases' last renewal failed: the store is not asked on a call's path
        }
        return this.bucket.book(accountKey, api, bucket, units, latestStartMillis);
    }

    @Override
    public void giveBack(String accountKey, String api, Bucket bucket, double units) {
        Thread.ofVirtual().start(() -> this.bucket.giveBack(accountKey, api, bucket, units)); // off the call's path
    }

    @Override
    public void carry(String fromKey, String toKey, String api) {
        bucket.carry(fromKey, toKey, api);
    }

    @Override
    public void empty(String accountKey, String api, Bucket bucket) {
        this.bucket.empty(accountKey, api, bucket);
    }

    /** Why the last renewal failed (null: it did not); each instance then paces at what it last knew. */
    public String lastError() {
        return lastError;
    }

    /** Why the last booking in the shared bucket failed (null: none did); calls then pace at their share a moment. */
    public String lastBookingError() {
        return bucket.lastError();
    }

    private void renewEvery() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(TICK);
                renewDue();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }
    }

    /** One round: renews the lease of every account served within {@link #LEASE}, forgets the others. */
    void renewAll() {
        renew(true);
    }

    /** Renews the leases due: a new lease's {@link #EARLY_RENEWALS}, then every {@link #RENEW}, or its demand moved. */
    void renewDue() {
        renew(false);
    }

    private void renew(boolean all) {
        long now = clock.getAsLong();
        for (Map.Entry<String, Lease> e : leases.entrySet()) {
            Lease lease = e.getValue();
            if (now - lease.seenAt > LEASE.toMillis()) {
                leases.remove(e.getKey(), lease); // its lease expires on its own
                continue;
            }
            long since = now - lease.renewedAt;
            // a user other instances serve too, and asked of here, is renewed every second: each reads the others'
            // demand only when it renews, so that is how soon the shares agree again after demand moves anywhere
            boolean due = lease.renewals > 0 && (since >= nextRenewal(lease.renewals).toMillis()
                    || since >= SOONEST.toMillis() && (demandMoved(lease, now) || sharedAndAsked(lease, now)));
            if ((all || due) && lease.renewing.compareAndSet(false, true)) {
                renew(e.getKey(), lease);
            }
        }
    }

    /** Whether this instance's demand on an API moved by {@link #DEMAND_MOVE} since it last told the others. */
    private static boolean demandMoved(Lease lease, long now) {
        for (Map.Entry<String, Meter> m : lease.meters.entrySet()) {
            double was = lease.told.getOrDefault(m.getKey(), 0.0);
            double is = m.getValue().rateAt(now);
            if (Math.max(was, is) >= NO_DEMAND && Math.abs(is - was) > DEMAND_MOVE * Math.max(was, is)) {
                return true;
            }
        }
        return false;
    }

    /** Whether other instances ask of the account too and this one asks of it now (on any API). */
    private static boolean sharedAndAsked(Lease lease, long now) {
        for (Map.Entry<String, Meter> m : lease.meters.entrySet()) {
            Others others = lease.others.get(m.getKey());
            if (others != null && others.instances() > 0 && m.getValue().rateAt(now) >= NO_DEMAND) {
                return true;
            }
        }
        return false;
    }

    /** How long after the {@code renewals}-th renewal the next one is due (a user served alone, or idle here). */
    static Duration nextRenewal(int renewals) {
        return renewals <= EARLY_RENEWALS.size() ? EARLY_RENEWALS.get(renewals - 1) : RENEW;
    }

    /** Writes this instance's lease and demand on the account and reads the others'; {@code lease.renewing} is set. */
    private void renew(String accountKey, Lease lease) {
        long now = clock.getAsLong();
        long expires = now + LEASE.toMillis();
        Map<String, String> names = new HashMap<>(Map.of("#me", instance));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":exp", AttributeValue.fromN(Long.toString(expires)),
                ":ttl", AttributeValue.fromN(Long.toString(expires / 1000 + LEASE.toSeconds()))));
        StringBuilder update = new StringBuilder("SET #me = :exp, expires_at = :ttl");
        Map<String, Double> told = new HashMap<>();
        int i = 0;
        for (Map.Entry<String, Meter> m : lease.meters.entrySet()) {
            double rate = m.getValue().rateAt(now);
            told.put(m.getKey(), rate);
            names.put("#d" + i, demandAttribute(m.getKey()));
            values.put(":d" + i, AttributeValue.fromN(String.format(Locale.ROOT, "%.3f", rate)));
            update.append(", #d").append(i).append(" = :d").append(i);
            i++;
        }
        List<String> stale = lease.stale;
        for (int k = 0; k < stale.size() && k < 40; k++) {
            names.put("#s" + k, stale.get(k));
            update.append(k == 0 ? " REMOVE " : ", ").append("#s").append(k);
        }
        try {
            Map<String, AttributeValue> item = client.updateItem(UpdateItemRequest.builder().tableName(table)
                    .key(Map.of(KEY, AttributeValue.fromS(accountKey)))
                    .updateExpression(update.toString()).expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .returnValues(ReturnValue.ALL_NEW).build()).attributes();
            read(item, now, lease);
            lease.toldBefore = lease.told;
            lease.told = Map.copyOf(told);
            lease.toldAt = now;
            lastError = null;
        } catch (RuntimeException e) {
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
        } finally {
            // counted as a round even when it failed: the next is due on the same schedule (the store may be back)
            lease.renewedAt = now;
            lease.renewals++;
            lease.renewing.set(false);
        }
    }

    /** The others' live demand in the item, by API, and the attributes of expired leases to remove next time. */
    private void read(Map<String, AttributeValue> item, long now, Lease lease) {
        Set<String> live = new HashSet<>();
        List<String> expired = new ArrayList<>();
        for (Map.Entry<String, AttributeValue> a : item.entrySet()) {
            if (a.getKey().startsWith(PREFIX) && a.getValue().n() != null && !a.getKey().equals(instance)) {
                if (Long.parseLong(a.getValue().n()) > now) {
                    live.add(a.getKey());
                } else {
                    expired.add(a.getKey());
                }
            }
        }
        Map<String, double[]> byApi = new HashMap<>(); // api -> {demand, instances}
        for (Map.Entry<String, AttributeValue> a : item.entrySet()) {
            String name = a.getKey();
            int at = name.indexOf("_" + PREFIX, DEMAND.length());
            if (!name.startsWith(DEMAND) || at < 0 || a.getValue().n() == null) {
                continue;
            }
            String owner = name.substring(at + 1);
            if (owner.equals(instance)) {
                continue;
            }
            if (!live.contains(owner)) {
                if (!expired.contains(name)) {
                    expired.add(name); // an expired lease's demand, or one whose expiry went before it
                }
                continue;
            }
            double rate = Double.parseDouble(a.getValue().n());
            if (rate >= NO_DEMAND) {
                double[] sum = byApi.computeIfAbsent(name.substring(DEMAND.length(), at), k -> new double[2]);
                sum[0] += rate;
                sum[1]++;
            }
        }
        Map<String, Others> others = new HashMap<>();
        byApi.forEach((api, sum) -> others.put(api, new Others(sum[0], (int) sum[1])));
        lease.others = Map.copyOf(others);
        lease.stale = List.copyOf(expired);
        AttributeValue moved = item.get(MOVED);
        if (moved != null && moved.s() != null && ACCOUNT_KEY.matcher(moved.s()).matches()) {
            lease.movedTo = moved.s();
        }
    }

    @Override
    public String movedTo(String accountKey) {
        Lease lease = leases.get(accountKey);
        return lease == null ? null : lease.movedTo;
    }

    /**
     * Leaves the pointer on {@code fromKey}'s item for the instances that still name the account so, and takes this
     * instance's lease and demand off it, in the background. Why a pointer: instances learn a credential's address
     * at different moments (its lookup waits behind the user's calls: 2-5 s apart under a hot user), and until each
     * has, the user's demand is split between two items, each seeing only some of the instances.
     */
    @Override
    public void moved(String fromKey, String toKey) {
        if (fromKey.equals(toKey) || !ACCOUNT_KEY.matcher(toKey).matches()) {
            return;
        }
        Lease lease = leases.remove(fromKey);
        firstRenewals.execute(() -> {
            long expires = clock.getAsLong() + LEASE.toMillis();
            letGo(fromKey, lease, "SET #moved = :to, expires_at = :ttl ", Map.of("#moved", MOVED), Map.of(
                    ":to", AttributeValue.fromS(toKey),
                    ":ttl", AttributeValue.fromN(Long.toString(expires / 1000 + LEASE.toSeconds()))));
        });
    }

    /** The attribute of this instance's demand on {@code api}. */
    private String demandAttribute(String api) {
        return DEMAND + api + "_" + instance;
    }

    /**
     * Takes this instance's lease and its demand off the account's item, after {@code set} (an update's SET part,
     * ending in a space, with its names and values; or nothing). A failure is let be: the lease expires on its own.
     */
    private void letGo(String accountKey, Lease lease, String set, Map<String, String> setNames,
                       Map<String, AttributeValue> values) {
        Map<String, String> names = new HashMap<>(setNames);
        names.put("#me", instance);
        StringBuilder update = new StringBuilder(set).append("REMOVE #me");
        int i = 0;
        for (String api : lease == null ? Set.<String>of() : lease.meters.keySet()) {
            names.put("#d" + i, demandAttribute(api));
            update.append(", #d").append(i++);
        }
        try {
            client.updateItem(UpdateItemRequest.builder().tableName(table).key(Map.of(KEY, AttributeValue.fromS(accountKey)))
                    .updateExpression(update.toString()).expressionAttributeNames(names)
                    .expressionAttributeValues(values.isEmpty() ? null : values).build());
        } catch (RuntimeException e) {
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** Lets go of this instance's leases (the others count it out at their next renewal), then stops. */
    @Override
    public void close() {
        if (renewer != null) {
            renewer.interrupt();
        }
        for (Map.Entry<String, Lease> lease : leases.entrySet()) {
            letGo(lease.getKey(), lease.getValue(), "", Map.of(), Map.of());
        }
        leases.clear();
    }

    /** Makes the table when it is missing (several instances may race), and waits until it is ACTIVE. */
    private void createIfMissing() {
        DynamoClients.ensureTable(client, CreateTableRequest.builder().tableName(table)
                .attributeDefinitions(AttributeDefinition.builder().attributeName(KEY).attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName(KEY).keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST).build());
    }
}
