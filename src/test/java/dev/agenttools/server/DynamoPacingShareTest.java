package dev.agenttools.server;

import dev.agenttools.google.PacingShare;
import dev.agenttools.tracking.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Instances sharing one DynamoDB (dynalite) tell one another what they ask of the accounts they serve: each sees the
 * others' demand; one that stops (closed, or silent past its lease) is counted out; an account one instance serves
 * alone is its own at once, whether or not the store answers. Renewals are driven by the test on a clock of its own.
 */
@Tag("process")
class DynamoPacingShareTest {
    private static Dynalite dynamo;
    private static DynamoDbClient client;

    @BeforeAll
    static void start() throws Exception {
        dynamo = Dynalite.start();
        client = dynamo.client();
    }

    @AfterAll
    static void stop() {
        client.close();
        dynamo.close();
    }

    /** First renewals left to the test's own rounds. */
    private static final Executor NOWHERE = r -> { };

    /**
     * Each instance asks {@code units} of the account's Gmail quota twice at one moment ({@code units / 2} a second
     * over the 4 s window), then all renew, twice over: the second round reads what the first wrote.
     */
    private static void rounds(List<DynamoPacingShare> instances, String account, int units) {
        for (DynamoPacingShare s : instances) {
            s.demand(account, "gmail", units);
            s.demand(account, "gmail", units);
        }
        for (int round = 0; round < 2; round++) {
            instances.forEach(DynamoPacingShare::renewAll);
        }
    }

    /** Renews every instance's leases until their early renewals are behind them. */
    private static void pastEarlyRenewals(DynamoPacingShare... instances) {
        for (int i = 0; i < DynamoPacingShare.EARLY_RENEWALS.size(); i++) {
            for (DynamoPacingShare s : instances) {
                s.renewAll();
            }
        }
    }

    /** An instance on {@code table} (made if missing), on the test's clock, renewing only when the test says. */
    private static DynamoPacingShare instance(String table, AtomicLong clock, Executor firstRenewals) {
        return new DynamoPacingShare(client, table, true, clock::get, false, firstRenewals);
    }

    private static PacingShare.Demand seen(DynamoPacingShare s, String account) {
        return s.demand(account, "gmail", 0);
    }

    @Test
    void instancesServingOneAccountSeeEachOthersDemandAndCountOutThoseThatStop() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = instance(table, clock, NOWHERE);
        DynamoPacingShare b = instance(table, clock, NOWHERE);
        DynamoPacingShare c = instance(table, clock, NOWHERE);
        String shared = "acct-0123456789abcdef";

        rounds(List.of(a, b, c), shared, 10);
        PacingShare.Demand fromA = seen(a, shared);
        assertThat(fromA.otherInstances()).isEqualTo(2);
        // 10 units asked twice at one moment, over a window of 4 s: 5 units a second each
        assertThat(fromA.own()).isCloseTo(5, within(0.01));
        assertThat(fromA.others()).isCloseTo(10, within(0.01));
        assertThat(seen(c, shared).otherInstances()).isEqualTo(2);
        assertThat(seen(a, "acct-fedcba9876543210").otherInstances()).as("an account a serves alone").isZero();

        c.close(); // a stop: its lease and demand let go at once
        clock.addAndGet(DynamoPacingShare.RENEW.toMillis());
        rounds(List.of(a, b), shared, 10);
        assertThat(seen(a, shared).otherInstances()).isEqualTo(1);
        assertThat(seen(b, shared).otherInstances()).isEqualTo(1);

        // b goes silent (killed): past its lease, a counts it out, then removes its lease and demand from the item
        clock.addAndGet(DynamoPacingShare.LEASE.toMillis() + 1);
        rounds(List.of(a), shared, 10);
        assertThat(seen(a, shared).otherInstances()).isZero();
        Map<String, AttributeValue> item = client.getItem(GetItemRequest.builder().tableName(table)
                .key(Map.of("account", AttributeValue.fromS(shared))).consistentRead(true).build()).item();
        assertThat(item.keySet().stream().filter(k -> k.startsWith("i_"))).as("only a's lease is left").hasSize(1);
        assertThat(item.keySet().stream().filter(k -> k.startsWith("d_"))).as("and only a's demand").hasSize(1);
        assertThat(item.toString()).doesNotContain("@").as("no address in the store");
        assertThat(a.lastError()).isNull();
        a.close();
        b.close();
    }

    @Test
    void anInstanceThatLearnsTheAddressLeavesAPointerThatTheOthersFollowAndTakesItsDemandOffTheCredentialsName() {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = instance(table, clock, Runnable::run);
        DynamoPacingShare b = instance(table, clock, NOWHERE);
        DynamoPacingShare c = instance(table, clock, NOWHERE);
        String token = "acct-00000000000000c1";
        String address = "acct-00000000000000c2";
        rounds(List.of(a, b, c), token, 50);
        assertThat(seen(b, token).otherInstances()).isEqualTo(2);
        assertThat(b.movedTo(token)).isNull();

        a.moved(token, address); // a learned the address
        b.renewAll();
        assertThat(b.movedTo(token)).as("b follows at its next renewal").isEqualTo(address);
        assertThat(seen(b, token).otherInstances()).as("a's demand left the credential's name").isEqualTo(1);

        // a pointer that is not an account's name is not followed
        c.moved(token, "user2@example.com");
        c.renewAll();
        assertThat(c.movedTo(token)).isEqualTo(address);
        a.close();
        b.close();
        c.close();
    }

    @Test
    void aUserNewToAnInstanceIsItsOwnAtOnceAndTheOthersFindItWithinTheFirstEarlyRenewal() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = instance(table, clock, NOWHERE);
        DynamoPacingShare b = instance(table, clock, NOWHERE);
        DynamoPacingShare c = instance(table, clock, NOWHERE);
        String busy = "acct-00000000000000b1";
        String fresh = "acct-00000000000000b2";
        rounds(List.of(a, b, c), busy, 50);
        assertThat(seen(a, busy).otherInstances()).isEqualTo(2);

        // a user's first call on a: alone, though another user is spread over three instances (it used to count as
        // spread as widely as the busiest user, and got a third of its quota)
        assertThat(a.demand(fresh, "gmail", 25).otherInstances()).isZero();
        a.renewAll(); // its first renewal (in the background, in service)
        // b starts serving it too: it finds a at its own first renewal, and a finds b at its first early renewal
        b.demand(fresh, "gmail", 25);
        b.renewAll();
        assertThat(seen(b, fresh).otherInstances()).isEqualTo(1);
        clock.addAndGet(DynamoPacingShare.EARLY_RENEWALS.getFirst().toMillis() - 1);
        a.renewDue();
        assertThat(seen(a, fresh).otherInstances()).as("not due yet").isZero();
        clock.addAndGet(1);
        a.renewDue();
        assertThat(seen(a, fresh).otherInstances()).as("counted at its first early renewal, not 5 s later").isEqualTo(1);
        assertThat(DynamoPacingShare.nextRenewal(1)).isEqualTo(DynamoPacingShare.EARLY_RENEWALS.getFirst());
        assertThat(DynamoPacingShare.nextRenewal(3)).isEqualTo(DynamoPacingShare.RENEW);
        a.close();
        b.close();
        c.close();
    }

    @Test
    void anInstanceWhoseDemandMovesTellsTheOthersWithinASecondNotAtItsNextRenewal() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = instance(table, clock, NOWHERE);
        DynamoPacingShare b = instance(table, clock, NOWHERE);
        String account = "acct-00000000000000c1";
        rounds(List.of(a, b), account, 5);
        pastEarlyRenewals(a, b);
        double before = seen(a, account).others();

        // b's calls quadruple: a learns it at b's next look at its leases after a second, not 5 s later
        clock.addAndGet(DynamoPacingShare.SOONEST.toMillis());
        for (int i = 0; i < 8; i++) {
            b.demand(account, "gmail", 5);
        }
        b.renewDue();
        a.renewAll();
        assertThat(seen(a, account).others()).as("b's demand, told early").isGreaterThan(3 * before);
        // b weighs its own rise only once the others have had a renewal to read it (a fall alike)
        assertThat(seen(b, account).own()).as("b's share, before a has read its rise").isCloseTo(before, within(0.01));
        clock.addAndGet(DynamoPacingShare.SOONEST.toMillis());
        assertThat(seen(b, account).own()).as("after").isGreaterThan(3 * before);
        a.close();
        b.close();
    }

    @Test
    void anInstanceWeighsAFallOfItsDemandAsTheOthersDoOnlyOnceTheyCanHaveReadIt() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = instance(table, clock, NOWHERE);
        DynamoPacingShare b = instance(table, clock, NOWHERE);
        String account = "acct-00000000000000c2";
        rounds(List.of(a, b), account, 40); // b asks 20 units a second
        pastEarlyRenewals(a, b);
        clock.addAndGet(DynamoPacingShare.SOONEST.toMillis());
        b.renewAll();
        a.renewAll();
        double busy = seen(a, account).others(); // b's demand as a holds it

        // b's calls stop: its demand decays; after 4 s it is down by more than half and b tells it at its next look
        clock.addAndGet(4 * DynamoPacingShare.SOONEST.toMillis());
        b.renewDue();
        double fallen = seen(b, account).own();
        // the share b weighs itself at is still the one a read (weighing the fall at once while a still counts the
        // old demand left the two shares short of the whole, every time demand moved)
        assertThat(fallen).as("b, before a can have read its fall: as a holds it").isCloseTo(busy, within(0.01));
        a.renewAll();
        assertThat(seen(a, account).others()).as("a has read it").isLessThan(busy / 2);
        clock.addAndGet(DynamoPacingShare.SOONEST.toMillis());
        assertThat(seen(b, account).own()).as("b, a second after telling it").isLessThan(busy / 2);
        a.close();
        b.close();
    }

    @Test
    void aStoreThatDoesNotAnswerNeverHoldsUpACall() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger writes = new AtomicInteger();
        // a DynamoDB that takes the request and never answers (a network that drops packets): every write hangs
        DynamoDbClient hanging = new DynamoDbClient() {
            @Override
            public UpdateItemResponse updateItem(UpdateItemRequest request) {
                writes.incrementAndGet();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw software.amazon.awssdk.core.exception.SdkClientException.create("the store did not answer");
            }

            @Override
            public software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse describeTable(
                    software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest request) {
                return client.describeTable(request);
            }

            @Override
            public String serviceName() {
                return "dynamodb";
            }

            @Override
            public void close() {
            }
        };
        String table = "pacing-" + System.nanoTime();
        new DynamoPacingShare(client, table, true).close(); // the table made while the store answered
        DynamoPacingShare s = new DynamoPacingShare(hanging, table, false, System::currentTimeMillis, false,
                r -> Thread.ofVirtual().start(r));
        try {
            for (int i = 0; i < 20; i++) {
                PacingShare.Demand d = s.demand("acct-00000000000000d" + Integer.toHexString(i), "gmail", 5);
                assertThat(d.otherInstances()).as("a new user is this instance's alone while the store is silent").isZero();
            }
            assertThat(release.getCount()).as("every call answered while every write still hangs").isEqualTo(1);
        } finally {
            release.countDown();
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (writes.get() < 20 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(writes.get()).as("each new account's first renewal was tried, in the background").isEqualTo(20);
    }
}
