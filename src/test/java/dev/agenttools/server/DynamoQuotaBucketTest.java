package dev.agenttools.server;

import dev.agenttools.google.PacingShare.Booking;
import dev.agenttools.google.PacingShare.Bucket;
import dev.agenttools.store.DynamoClients;
import dev.agenttools.tracking.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bucket of a user's quota that every instance books in (dynalite, each instance with a bucket of its own and the
 * test's clock): a full bucket lets its burst through at once, then starts follow the rate exactly whichever instance
 * books; a booking that would start too late is refused with when it would start and takes nothing; what a call did
 * not spend comes back; a store that is down answers "unshared" at once and is left alone a moment.
 */
@Tag("process")
class DynamoQuotaBucketTest {
    private static Dynalite dynamo;
    private static DynamoDbClient client;
    /** 2,400 units a minute, 36 at once (Gmail's 40 less the pacer's headroom): a unit every 25 ms. */
    private static final Bucket BUCKET = new Bucket(40, 36);

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

    private static String table() {
        String table = "bucket-" + System.nanoTime();
        new DynamoPacingShare(client, table, true).close();
        return table;
    }

    @Test
    void aFullBucketLetsItsBurstThroughAtOnceThenStartsFollowTheRateWhicheverInstanceBooks() {
        AtomicLong clock = new AtomicLong(1_000_000);
        String table = table();
        DynamoQuotaBucket a = new DynamoQuotaBucket(client, table, clock::get);
        DynamoQuotaBucket b = new DynamoQuotaBucket(client, table, clock::get);
        long now = clock.get();
        String account = "acct-00000000000000b1";
        // 25 units (a list of 4) then 10: 35 of the 36 the bucket holds, both at once, one per instance
        // (the units of a full bucket are free from 900 ms, its 36 units' time, before the booking's end: now)
        assertThat(a.book(account, "gmail", BUCKET, 25, now + 5_000)).isEqualTo(Booking.booked(now - 900 + 625));
        assertThat(b.book(account, "gmail", BUCKET, 10, now + 5_000)).isEqualTo(Booking.booked(now - 900 + 875));
        // the bucket is now in debt: each next 25 units start 625 ms after the one before, alternating instances
        long last = now;
        for (int i = 0; i < 6; i++) {
            DynamoQuotaBucket who = i % 2 == 0 ? b : a;
            Booking booked = who.book(account, "gmail", BUCKET, 25, now + 10_000);
            assertThat(booked.outcome()).isEqualTo(Booking.Outcome.BOOKED);
            assertThat(booked.atMillis()).as("booking %d", i).isEqualTo(now - 25 + 625 * (i + 1));
            assertThat(booked.atMillis()).isGreaterThan(last);
            last = booked.atMillis();
        }
        // another API's bucket of the same user is its own
        assertThat(a.book(account, "calendar", BUCKET, 25, now).atMillis()).isLessThanOrEqualTo(now);
    }

    @Test
    void aBookingThatWouldStartTooLateIsRefusedWithWhenItWouldStartAndTakesNothing() {
        AtomicLong clock = new AtomicLong(2_000_000);
        String table = table();
        DynamoQuotaBucket a = new DynamoQuotaBucket(client, table, clock::get);
        DynamoQuotaBucket b = new DynamoQuotaBucket(client, table, clock::get);
        long now = clock.get();
        String account = "acct-00000000000000b2";
        for (int i = 0; i < 4; i++) { // 144 units: 3.6 s of the rate, the first 36 free at once
            assertThat(a.book(account, "gmail", BUCKET, 36, now + 10_000).outcome()).isEqualTo(Booking.Outcome.BOOKED);
        }
        // the next 25 units are free at now - 900 + 144 * 25 + 25 * 25 = now + 3,325
        Booking refused = b.book(account, "gmail", BUCKET, 25, now + 1_000);
        assertThat(refused).isEqualTo(Booking.refused(now + 3_325));
        Booking again = a.book(account, "gmail", BUCKET, 25, now + 1_000); // known from its last write: no round trip
        assertThat(again).isEqualTo(Booking.refused(now + 3_325));
        // nothing was taken: a call that may wait that long gets that very start
        assertThat(b.book(account, "gmail", BUCKET, 25, now + 3_325)).isEqualTo(Booking.booked(now + 3_325));
    }

    @Test
    void whatACallDidNotSpendComesBackAndAFullBucketStaysFull() {
        AtomicLong clock = new AtomicLong(3_000_000);
        String table = table();
        DynamoQuotaBucket a = new DynamoQuotaBucket(client, table, clock::get);
        DynamoQuotaBucket b = new DynamoQuotaBucket(client, table, clock::get);
        long now = clock.get();
        String account = "acct-00000000000000b3";
        a.book(account, "gmail", BUCKET, 36, now + 10_000);
        assertThat(a.book(account, "gmail", BUCKET, 25, now + 10_000)).isEqualTo(Booking.booked(now + 625));
        a.giveBack(account, "gmail", BUCKET, 20); // a list answered from the index: 20 of its 25 units unspent
        assertThat(b.book(account, "gmail", BUCKET, 25, now + 10_000)).isEqualTo(Booking.booked(now + 625 + 125));
        // long idle: the bucket is full, and what is given back then does not make it hold more than full
        clock.addAndGet(60_000);
        now = clock.get();
        b.giveBack(account, "gmail", BUCKET, 36);
        assertThat(a.book(account, "gmail", BUCKET, 36, now + 10_000)).isEqualTo(Booking.booked(now));
        assertThat(b.book(account, "gmail", BUCKET, 5, now + 10_000)).isEqualTo(Booking.booked(now + 125));
    }

    @Test
    void instancesBookingAtOnceNeverShareAStartAndSpendExactlyTheRate() throws Exception {
        AtomicLong clock = new AtomicLong(4_000_000);
        String table = table();
        long now = clock.get();
        String account = "acct-00000000000000b4";
        List<Callable<Booking>> bookings = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            DynamoQuotaBucket own = new DynamoQuotaBucket(client, table, clock::get); // as many instances, racing
            bookings.add(() -> own.book(account, "gmail", BUCKET, 10, now + 60_000));
        }
        List<Long> starts = new ArrayList<>();
        int unshared = 0;
        try (var pool = Executors.newFixedThreadPool(8)) {
            for (Future<Booking> f : pool.invokeAll(bookings)) {
                Booking b = f.get();
                if (b.outcome() == Booking.Outcome.UNSHARED) {
                    unshared++; // contended past its tries: that call would pace at its share
                } else {
                    starts.add(b.atMillis());
                }
            }
        }
        starts.sort(null);
        assertThat(starts).doesNotHaveDuplicates();
        // 10 units each, a unit every 25 ms: each start 250 ms after the one before, the first 900 ms early (full)
        assertThat(unshared).as("bookings that lost every try").isLessThanOrEqualTo(3);
        for (int i = 0; i < starts.size(); i++) {
            assertThat(starts.get(i)).as("start %d", i).isEqualTo(now - 900 + 250L * (i + 1));
        }
    }

    @Test
    void bookingsUnderACredentialsNameMoveToTheAddressOnceAnInstanceHasLearnedIt() {
        AtomicLong clock = new AtomicLong(6_000_000);
        String table = table();
        DynamoQuotaBucket a = new DynamoQuotaBucket(client, table, clock::get);
        DynamoQuotaBucket b = new DynamoQuotaBucket(client, table, clock::get);
        long now = clock.get();
        String token = "acct-00000000000000c1";
        String address = "acct-00000000000000c2";
        a.book(token, "gmail", BUCKET, 36, now + 10_000); // the first calls, before the address was known
        b.book(token, "gmail", BUCKET, 25, now + 10_000);
        // instance a learns the address: what was booked under the token's name counts under the address's
        a.carry(token, address, "gmail");
        assertThat(a.book(address, "gmail", BUCKET, 25, now + 10_000)).isEqualTo(Booking.booked(now + 1_250));
        // instance b has not learned it yet: its booking under the token's name lands under the address's too
        assertThat(b.book(token, "gmail", BUCKET, 25, now + 10_000)).isEqualTo(Booking.booked(now + 1_875));
        assertThat(b.book(address, "gmail", BUCKET, 5, now + 10_000)).isEqualTo(Booking.booked(now + 2_000));
    }

    @Test
    void aRefusalFromGoogleEmptiesTheBucketButNeverMovesBookingsBack() {
        AtomicLong clock = new AtomicLong(7_000_000);
        String table = table();
        DynamoQuotaBucket a = new DynamoQuotaBucket(client, table, clock::get);
        long now = clock.get();
        String account = "acct-00000000000000d1";
        a.book(account, "gmail", BUCKET, 5, now + 10_000); // a full bucket: 31 units still free
        a.empty(account, "gmail", new Bucket(40, 40)); // Google says its bucket (40 units) is empty now
        assertThat(a.book(account, "gmail", BUCKET, 5, now + 10_000)).isEqualTo(Booking.booked(now + 1_000 + 125 - 900));
        a.empty(account, "gmail", new Bucket(40, 40)); // already past that: nothing moves
        assertThat(a.book(account, "gmail", BUCKET, 5, now + 10_000)).isEqualTo(Booking.booked(now + 1_000 + 250 - 900));
    }

    @Test
    void aStoreThatIsDownAnswersUnsharedAtOnceAndIsLeftAloneAMoment() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        AtomicLong clock = new AtomicLong(5_000_000);
        try (DynamoDbClient down = DynamoClients.client(URI.create("http://127.0.0.1:" + closedPort), "us-east-1",
                ClientOverrideConfiguration.builder().retryStrategy(b -> b.maxAttempts(2))
                        .apiCallTimeout(DynamoPacingShare.BOOKING_TIMEOUT).build())) {
            DynamoQuotaBucket bucket = new DynamoQuotaBucket(down, "anything", clock::get);
            long started = System.nanoTime();
            assertThat(bucket.book("acct-00000000000000b5", "gmail", BUCKET, 25, clock.get() + 5_000))
                    .isEqualTo(Booking.unshared());
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isLessThanOrEqualTo(DynamoPacingShare.BOOKING_TIMEOUT.plusSeconds(1));
            assertThat(bucket.lastError()).isNotNull();
            // within the rest the store is not asked; after it, it is, and a second failure in a row rests twice as long
            clock.addAndGet(DynamoQuotaBucket.REST.toMillis() - 1);
            assertThat(bucket.book("acct-00000000000000b5", "gmail", BUCKET, 25, clock.get() + 5_000))
                    .isEqualTo(Booking.unshared());
            String first = bucket.lastError();
            clock.addAndGet(1);
            bucket.book("acct-00000000000000b5", "gmail", BUCKET, 25, clock.get() + 5_000);
            assertThat(bucket.lastError()).as("asked again once the rest was over").isNotSameAs(first);
            String second = bucket.lastError();
            clock.addAndGet(2 * DynamoQuotaBucket.REST.toMillis() - 1);
            bucket.book("acct-00000000000000b5", "gmail", BUCKET, 25, clock.get() + 5_000);
            assertThat(bucket.lastError()).as("not asked within the doubled rest").isSameAs(second);
        }
    }
}
