package dev.agenttools.shared;

import dev.agenttools.tracking.Dynalite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three instances sharing one DynamoDB (dynalite) count one another on the accounts they serve: each paces at its
 * share; one that stops (closed, or silent past its lease) is counted out; an account one instance serves alone stays
 * whole. Renewals are driven by the test on a clock of its own.
 */
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

    private static void rounds(AtomicLong clock, List<DynamoPacingShare> instances, String account) {
        for (int round = 0; round < 2; round++) {
            for (DynamoPacingShare s : instances) {
                s.instancesServing(account);
                s.renewAll();
            }
        }
    }

    @Test
    void instancesServingOneAccountCountEachOtherAndCountOutThoseThatStop() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = new DynamoPacingShare(client, table, true, clock::get, false);
        DynamoPacingShare b = new DynamoPacingShare(client, table, true, clock::get, false);
        DynamoPacingShare c = new DynamoPacingShare(client, table, true, clock::get, false);
        String shared = "acct-0123456789abcdef";
        String alone = "acct-fedcba9876543210";

        rounds(clock, List.of(a, b, c), shared);
        assertThat(List.of(a.instancesServing(shared), b.instancesServing(shared), c.instancesServing(shared))).containsOnly(3);
        a.instancesServing(alone);
        for (int i = 0; i < DynamoPacingShare.EARLY_RENEWALS.size(); i++) {
            a.renewAll();
        }
        assertThat(a.instancesServing(alone)).as("an account a serves alone, once its lease is settled").isEqualTo(1);

        c.close(); // a stop: its leases let go at once
        clock.addAndGet(DynamoPacingShare.RENEW.toMillis());
        rounds(clock, List.of(a, b), shared);
        assertThat(List.of(a.instancesServing(shared), b.instancesServing(shared))).containsOnly(2);

        // b goes silent (killed): past its lease, a counts it out, then removes it from the item
        clock.addAndGet(DynamoPacingShare.LEASE.toMillis() + 1);
        rounds(clock, List.of(a), shared);
        assertThat(a.instancesServing(shared)).isEqualTo(1);
        Map<String, AttributeValue> item = client.getItem(GetItemRequest.builder().tableName(table)
                .key(Map.of("account", AttributeValue.fromS(shared))).consistentRead(true).build()).item();
        assertThat(item.keySet().stream().filter(k -> k.startsWith("i_"))).as("only a's lease is left").hasSize(1);
        assertThat(item.toString()).doesNotContain("@").as("no address in the store");
        assertThat(a.lastError()).isNull();
        a.close();
        b.close();
    }
    @Test
    void instancesThatStartServingAnAccountTogetherCountEachOtherWithinTheFirstEarlyRenewal() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = new DynamoPacingShare(client, table, true, clock::get, false);
        DynamoPacingShare b = new DynamoPacingShare(client, table, true, clock::get, false);
        String account = "acct-00000000000000aa";

        // the first call of each waits for its first renewal: a finds itself alone, b finds a
        assertThat(a.instancesServing(account)).isEqualTo(1);
        assertThat(b.instancesServing(account)).isEqualTo(2);

        clock.addAndGet(DynamoPacingShare.EARLY_RENEWALS.getFirst().toMillis() - 1);
        a.renewDue();
        assertThat(a.instancesServing(account)).as("not due yet").isEqualTo(1);
        clock.addAndGet(1);
        a.renewDue();
        assertThat(a.instancesServing(account)).as("counted at its first early renewal, not 5 s later").isEqualTo(2);
        assertThat(DynamoPacingShare.nextRenewal(1)).isEqualTo(DynamoPacingShare.EARLY_RENEWALS.getFirst());
        assertThat(DynamoPacingShare.nextRenewal(3)).isEqualTo(DynamoPacingShare.RENEW);
        a.close();
        b.close();
    }
    @Test
    void aNewAccountCountsAsSpreadAsWidelyAsTheOthersUntilItsEarlyRenewalsAreDone() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        String table = "pacing-" + System.nanoTime();
        DynamoPacingShare a = new DynamoPacingShare(client, table, true, clock::get, false);
        DynamoPacingShare b = new DynamoPacingShare(client, table, true, clock::get, false);
        DynamoPacingShare c = new DynamoPacingShare(client, table, true, clock::get, false);
        String busy = "acct-00000000000000b1";
        String fresh = "acct-00000000000000b2";
        rounds(clock, List.of(a, b, c), busy);
        a.renewAll(); // busy's lease on a is settled now: three instances serve it
        assertThat(a.instancesServing(busy)).isEqualTo(3);

        // a user's first call reaches a; the balancer will spread the next ones over b and c, which a cannot know yet
        assertThat(a.instancesServing(fresh)).as("as spread as the busy user, not alone").isEqualTo(3);
        for (int i = 0; i < DynamoPacingShare.EARLY_RENEWALS.size(); i++) {
            a.renewAll();
        }
        assertThat(a.instancesServing(fresh)).as("its own count once settled: only a served it").isEqualTo(1);
        a.close();
        b.close();
        c.close();
    }
}
