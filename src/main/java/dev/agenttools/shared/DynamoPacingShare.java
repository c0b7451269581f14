package dev.agenttools.shared;

import dev.agenttools.google.PacingShare;
import dev.agenttools.store.DynamoClients;
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

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Which instances serve each account, kept in DynamoDB as leases: an instance that served an account in the last
 * {@link #LEASE} renews its lease on that account's item every {@link #RENEW}, one {@code UpdateItem} that writes its
 * own expiry and returns the item, whose live leases are the count ({@link #instancesServing} answers from memory).
 *
 * <p>Why leases and not a shared token bucket: a bucket in DynamoDB costs a conditional write per Gmail call (10 per
 * list of 10, retried under contention), on the call's path; a lease costs one write per account per instance every
 * {@link #RENEW} whatever the call rate, off the call's path. The price: each instance paces at an even share
 * (1/count), exact when the load balancer spreads a user's calls evenly (round robin, least connections), cautious
 * when it does not. Instances that start serving an account at the same moment (a user's burst spread by round robin)
 * would each find itself alone at its first renewal; so a new lease is renewed again after {@link #EARLY_RENEWALS} and
 * only then every {@link #RENEW}; the first call of an account on an instance waits for its first renewal (one
 * write, at most {@link #FIRST_WAIT}); and until the early renewals are done the account counts as served by at least
 * as many instances as the most widely served settled account (round robin spreads every busy user over every
 * instance), so that none paces a user as if alone while the others start. The item's key is a digest
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
    /** The longest the first call of an account waits for the lease's first renewal (the store slow or down). */
    static final Duration FIRST_WAIT = Duration.ofSeconds(1);
    /** Accounts whose lease this instance keeps at most (past it the least recently seen are let go). */
    static final int MAX_ACCOUNTS = 100_000;
    private static final String KEY = "account";
    private static final String PREFIX = "i_";

    private final DynamoDbClient client;
    private final String table;
    private final String instance = PREFIX + UUID.randomUUID().toString().replace("-", "");
    private final LongSupplier clock;
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    private final Thread renewer;
    private volatile String lastError;
    /** The most instances serving any one account whose lease is settled: how widely the balancer spreads a user. */
    private volatile int widest = 1;

    /** What this instance knows of one account. */
    private static final class Lease {
        final java.util.concurrent.CountDownLatch firstRenewal = new java.util.concurrent.CountDownLatch(1);
        volatile long seenAt;
        volatile long renewedAt;
        volatile int renewals;
        volatile int count = 1;
        /** Other instances' leases found expired at the last renewal: removed from the item at the next. */
        volatile List<String> stale = List.of();
    }

    /**
     * @param createTable make the table when it is missing (a local DynamoDB, tests); in AWS, make it beforehand
     */
    public DynamoPacingShare(DynamoDbClient client, String table, boolean createTable) {
        this(client, table, createTable, System::currentTimeMillis, true);
    }

    DynamoPacingShare(DynamoDbClient client, String table, boolean createTable, LongSupplier clock, boolean renewInBackground) {
        this.client = client;
        this.table = table;
        this.clock = clock;
        if (createTable) {
            createIfMissing();
        } else {
            client.describeTable(DescribeTableRequest.builder().tableName(table).build()); // fails now, not at a call
        }
        this.renewer = renewInBackground ? Thread.ofPlatform().daemon().name("pacing-share").start(this::renewEvery) : null;
    }

    @Override
    public int instancesServing(String accountKey) {
        Lease lease = leases.get(accountKey);
        if (lease == null) {
            if (leases.size() >= MAX_ACCOUNTS) {
                return 1;
            }
            Lease fresh = new Lease();
            lease = leases.putIfAbsent(accountKey, fresh);
            if (lease == null) {
                lease = fresh;
                fresh.seenAt = clock.getAsLong();
                // counted by the others (and counting them) at once, not at the next round
                Thread.ofVirtual().start(() -> {
                    try {
                        renew(accountKey, fresh);
                    } finally {
                        fresh.firstRenewal.countDown();
                    }
                });
            }
        }
        lease.seenAt = clock.getAsLong();
        if (lease.firstRenewal.getCount() > 0) {
            awaitFirstRenewal(lease);
        }
        // until its early renewals are done, a new lease may not see the instances starting with it: assume the user
        // is spread as widely as the others are (round robin spreads every user over every instance)
        return lease.renewals <= EARLY_RENEWALS.size() ? Math.max(lease.count, widest) : lease.count;
    }

    /** The first calls of an account wait for its first count (bounded): until then this instance would pace alone. */
    private static void awaitFirstRenewal(Lease lease) {
        try {
            lease.firstRenewal.await(FIRST_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the call is being cancelled: it finds out at its next wait
        }
    }

    /** Why the last renewal failed (null: it did not); each instance then paces at what it last knew. */
    public String lastError() {
        return lastError;
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

    /** Renews the leases due: a new lease's {@link #EARLY_RENEWALS}, then every {@link #RENEW}. */
    void renewDue() {
        renew(false);
    }

    private void renew(boolean all) {
        long now = clock.getAsLong();
        int widestNow = 1;
        for (Map.Entry<String, Lease> e : leases.entrySet()) {
            Lease lease = e.getValue();
            if (now - lease.seenAt > LEASE.toMillis()) {
                leases.remove(e.getKey(), lease); // its lease expires on its own
                continue;
            }
            if (all || (lease.renewals > 0 && now - lease.renewedAt >= nextRenewal(lease.renewals).toMillis())) {
                renew(e.getKey(), lease);
            }
            if (lease.renewals > EARLY_RENEWALS.size()) {
                widestNow = Math.max(widestNow, lease.count);
            }
        }
        widest = widestNow;
    }

    /** How long after the {@code renewals}-th renewal the next one is due. */
    static Duration nextRenewal(int renewals) {
        return renewals <= EARLY_RENEWALS.size() ? EARLY_RENEWALS.get(renewals - 1) : RENEW;
    }

    private void renew(String accountKey, Lease lease) {
        long now = clock.getAsLong();
        long expires = now + LEASE.toMillis();
        Map<String, String> names = new HashMap<>(Map.of("#me", instance));
        StringBuilder update = new StringBuilder("SET #me = :exp, expires_at = :ttl");
        List<String> stale = lease.stale;
        for (int i = 0; i < stale.size() && i < 20; i++) {
            names.put("#s" + i, stale.get(i));
            update.append(i == 0 ? " REMOVE " : ", ").append("#s").append(i);
        }
        try {
            Map<String, AttributeValue> item = client.updateItem(UpdateItemRequest.builder().tableName(table)
                    .key(Map.of(KEY, AttributeValue.fromS(accountKey)))
                    .updateExpression(update.toString()).expressionAttributeNames(names)
                    .expressionAttributeValues(Map.of(":exp", AttributeValue.fromN(Long.toString(expires)),
                            ":ttl", AttributeValue.fromN(Long.toString(expires / 1000 + LEASE.toSeconds()))))
                    .returnValues(ReturnValue.ALL_NEW).build()).attributes();
            int live = 0;
            List<String> expired = new ArrayList<>();
            for (Map.Entry<String, AttributeValue> a : item.entrySet()) {
                if (a.getKey().startsWith(PREFIX) && a.getValue().n() != null) {
                    if (Long.parseLong(a.getValue().n()) > now) {
                        live++;
                    } else {
                        expired.add(a.getKey());
                    }
                }
            }
            lease.count = Math.max(1, live);
            lease.stale = List.copyOf(expired);
            lastError = null;
        } catch (RuntimeException e) {
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
        } finally {
            // counted as a round even when it failed: the next is due on the same schedule (the store may be back)
            lease.renewedAt = now;
            lease.renewals++;
        }
    }

    /** Lets go of this instance's leases (the others count it out at their next renewal), then stops. */
    @Override
    public void close() {
        if (renewer != null) {
            renewer.interrupt();
        }
        for (String accountKey : leases.keySet()) {
            try {
                client.updateItem(UpdateItemRequest.builder().tableName(table).key(Map.of(KEY, AttributeValue.fromS(accountKey)))
                        .updateExpression("REMOVE #me").expressionAttributeNames(Map.of("#me", instance)).build());
            } catch (RuntimeException e) {
                lastError = e.getClass().getSimpleName() + ": " + e.getMessage(); // it expires on its own
            }
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
