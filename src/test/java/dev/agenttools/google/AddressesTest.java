package dev.agenttools.google;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What is remembered of who each credential is: asked by one session at a time, again after a failure, bounded. */
class AddressesTest {
    @Test
    void aFailedLookupIsAskedAgainByALaterSessionAndAnAnswerEndsTheAsking() {
        Addresses addresses = new Addresses(Duration.ZERO, Addresses.CONFIRMED_FOR);
        assertThat(addresses.opened("token-1", true).ask()).as("first session").isFalse();
        assertThat(addresses.opened("token-1", true).ask()).as("second session asks").isTrue();
        assertThat(addresses.opened("token-1", true).ask()).as("one lookup at a time").isFalse();
        addresses.answered("token-1", null);
        assertThat(addresses.opened("token-1", true).ask()).as("failed: asked again").isTrue();
        addresses.answered("token-1", "not an address");
        assertThat(addresses.opened("token-1", true).ask()).as("an answer that is not an address is a failure").isTrue();
        addresses.answered("token-1", "me@example.com");
        Addresses.Seen seen = addresses.opened("token-1", true);
        assertThat(seen.ask()).isFalse();
        assertThat(seen.address()).isEqualTo("me@example.com");
    }

    @Test
    void anAddressStandsForWhoTheCallerIsOnlyWhileGoogleGaveItLately() {
        Addresses lately = new Addresses();
        assertThat(lately.confirmed("token-1")).isEmpty();
        lately.answered("token-1", "me@example.com");
        lately.learned("token-2", "you@example.com");
        assertThat(lately.confirmed("token-1")).contains("me@example.com");
        assertThat(lately.confirmed("token-2")).contains("you@example.com");
        Addresses stale = new Addresses(Addresses.RETRY_AFTER, Duration.ZERO);
        stale.answered("token-1", "me@example.com");
        assertThat(stale.confirmed("token-1")).as("older than it may be").isEmpty();
        assertThat(stale.addressOf("token-1")).as("still the account the calls are paced as").contains("me@example.com");
    }

    @Test
    void rememberedCredentialsAreBoundedLeastRecentlyUsedFirst() {
        Addresses addresses = new Addresses();
        addresses.learned("token-first", "first@example.com");
        for (int i = 0; i < Addresses.MAX_CREDENTIALS; i++) {
            addresses.opened("token-" + i, true);
        }
        assertThat(addresses.size()).isEqualTo(Addresses.MAX_CREDENTIALS);
        assertThat(addresses.addressOf("token-first")).as("the least recently used went").isEmpty();
    }

    @Test
    void onlyAnAddressIsTakenForOne() {
        assertThat(Addresses.plausible("me@example.com")).isTrue();
        assertThat(Addresses.plausible("jürgen@example.de")).isTrue();
        assertThat(Addresses.plausible(null)).isFalse();
        assertThat(Addresses.plausible("")).isFalse();
        assertThat(Addresses.plausible("@example.com")).isFalse();
        assertThat(Addresses.plausible("me@")).isFalse();
        assertThat(Addresses.plausible("me @example.com")).isFalse();
        assertThat(Addresses.plausible("me@example.com\r\nX: y")).isFalse();
        assertThat(Addresses.plausible("a".repeat(320) + "@example.com")).isFalse();
    }
}
