package dev.agenttools.google;

import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What the pacing counts for metrics: only the calls that waited and how long (in virtual time, {@link VirtualTime}),
 * Google's refusals by kind, and the accounts paced, at learned limits below the configured ones, or at a share.
 */
class PacingStatsTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private final VirtualTime time = new VirtualTime();
    private final PacingStats stats = new PacingStats();

    /** Gmail's pacers on the test's clock, counting into {@link #stats}: 600 units a minute, a bucket of 9, 4 in flight. */
    private PerAccount<QuotaPacer> gmailPacers() {
        PacingStats.Counts counts = stats.counts("Gmail");
        PerAccount<QuotaPacer> pacers = new PerAccount<>(100, a -> new QuotaPacer("Gmail", 600, 10, 4, time, counts));
        stats.watch("Gmail", pacers);
        return pacers;
    }

    private PacingStats.Snapshot gmail() {
        assertThat(stats.snapshot()).extracting(PacingStats.Snapshot::api).containsExactly("gmail");
        return stats.snapshot().getFirst();
    }

    @Test
    void countsOnlyTheCallsThatWaitedAndForHowLong() throws Exception {
        QuotaPacer pacer = gmailPacers().get(Account.ofToken("amy's token"));
        for (int i = 0; i < 9; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "within the bucket").close();
        }
        assertThat(gmail().waits()).as("calls the bucket let through at once").isZero();
        assertThat(gmail().waitSeconds()).isZero();

        for (int i = 0; i < 5; i++) {
            pacer.acquire(1, 1, time.deadline(HOUR), "paced").close();
        }
        try (QuotaPacer.Permit refused = pacer.acquire(0, 1, time.deadline(HOUR), "refused")) {
            pacer.rateLimited(refused, false, Duration.ofSeconds(2)); // Google: quota spent, come back in 2 s
        }
        pacer.acquire(0, 1, time.deadline(HOUR), "after Retry-After").close();

        assertThat(gmail().waits()).as("five waited for quota, one for Google's pause").isEqualTo(6);
        assertThat(gmail().waitSeconds()).isCloseTo(time.slept() / 1e9, within(1e-6));
        assertThat(gmail().waitSeconds()).isGreaterThanOrEqualTo(2.5);
    }

    @Test
    void countsRefusalsByKindAndTheAccountsWhoseLearnedLimitsAreBelowTheConfigured() throws Exception {
        PerAccount<QuotaPacer> pacers = gmailPacers();
        QuotaPacer amy = pacers.get(Account.ofToken("amy's token"));
        QuotaPacer bob = pacers.get(Account.ofToken("bob's token"));
        QuotaPacer carol = pacers.get(Account.ofToken("carol's token"));
        QuotaPacer dan = pacers.get(Account.ofToken("dan's token"));
        // amy's address learned: the same account under a second key, counted once
        assertThat(pacers.get(Account.ofAddress("amy@example.com", Account.ofToken("amy's token")))).isSameAs(amy);

        QuotaPacer.Permit a1 = amy.acquire(1, 1, time.deadline(HOUR), "a1");
        QuotaPacer.Permit a2 = amy.acquire(1, 1, time.deadline(HOUR), "a2");
        amy.rateLimited(a2, true, null); // too many concurrent requests with 2 in flight: a cap of 1 learned
        a1.close();
        a2.close();
        QuotaPacer.Permit b = bob.acquire(1, 1, time.deadline(HOUR), "b");
        bob.rateLimited(b, false, null); // quota: the rate halved
        b.close();
        try (QuotaPacer.Permit again = bob.acquire(1, 1, time.deadline(HOUR), "b again")) {
            bob.rateLimited(again, false, null); // counted, though it teaches nothing new
        }
        try (QuotaPacer.Permit c = carol.acquire(1, 1, time.deadline(HOUR), "c")) {
            carol.succeeded(c);
        }
        dan.share(new PacingShare.Demand(0, 0, 1)); // two instances serve dan: 2 in flight is dan's whole share here, not a learned limit

        PacingStats.Snapshot s = gmail();
        assertThat(s.concurrencyRefusals()).isEqualTo(1);
        assertThat(s.quotaRefusals()).isEqualTo(2);
        assertThat(s.accounts()).isEqualTo(4);
        assertThat(s.concurrencyBelowConfigured()).as("amy").isEqualTo(1);
        assertThat(s.rateBelowConfigured()).as("bob").isEqualTo(1);
        assertThat(s.shared()).as("dan").isEqualTo(1);
        assertThat(s.toString()).doesNotContain("amy").doesNotContain("token").doesNotContain("@");
    }

    @Test
    void callsOfEachApiCountApartAndNoneKeepsNothing() throws Exception {
        GoogleCalls gmail = new GoogleCalls("Gmail", 15_000, 250, 20, Retry.DEFAULT, PacingShare.ALONE, stats);
        GoogleCalls calendar = new GoogleCalls("Calendar", 600, 600, 10, Retry.DEFAULT, PacingShare.ALONE, stats);
        gmail.pacer(Account.ofToken("amy's token"));
        gmail.pacer(Account.ofToken("bob's token"));
        calendar.pacer(Account.ofToken("amy's token"));

        assertThat(stats.snapshot()).extracting(PacingStats.Snapshot::api, PacingStats.Snapshot::accounts)
                .containsExactly(Tuple.tuple("calendar", 1), Tuple.tuple("gmail", 2));
        new GoogleCalls("Gmail", 15_000, 250, 20, Retry.DEFAULT, PacingShare.ALONE, PacingStats.NONE)
                .pacer(Account.ofToken("amy's token"));
        assertThat(PacingStats.NONE.snapshot()).isEmpty();
    }
}
