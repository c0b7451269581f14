package dev.agenttools.google;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** What is kept per user: keyed by the credential's digest, never the credential, and bounded. */
class PerAccountTest {
    @Test
    void tokensWhoseHashCodesCollideAreStillTwoAccounts() {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());

        assertThat(Account.ofToken("Aa")).isNotEqualTo(Account.ofToken("BB"));
        assertThat(Account.ofToken("ya29.same")).isEqualTo(Account.ofToken("ya29.same"));
        assertThat(Account.ofToken("ya29.secret-token").toString()).doesNotContain("secret").matches(".*token-[0-9a-f]{16}.*");
    }

    @Test
    void keepsOneValuePerAccountAndForgetsTheLeastRecentlyUsedPastTheBound() {
        AtomicInteger made = new AtomicInteger();
        PerAccount<Integer> perAccount = new PerAccount<>(3, a -> made.incrementAndGet());
        Integer first = perAccount.get(Account.ofToken("a"));
        perAccount.get(Account.ofToken("b"));
        perAccount.get(Account.ofToken("c"));
        assertThat(perAccount.get(Account.ofToken("a"))).as("the same value again").isSameAs(first);

        perAccount.get(Account.ofToken("d")); // over the bound: "b", the least recently used, goes

        assertThat(perAccount.size()).isEqualTo(3);
        assertThat(perAccount.get(Account.ofToken("a"))).isSameAs(first);
        int before = made.get();
        perAccount.get(Account.ofToken("b"));
        assertThat(made.get()).as("b was forgotten and made afresh").isEqualTo(before + 1);
    }
}
