package dev.agenttools.google;

import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.gmail.model.Profile;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.agenttools.tool.Deadline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An account is a Google account: once the connection has learned who a credential is (asked in the background, from
 * its second session on), every token of that address is one account with one pacer, and other addresses are not.
 * Against a small Google-shaped server whose users.getProfile answers by token, as Google does: the emulator serves
 * one user.
 */
class AccountAddressTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private HttpServer server;
    /** Token → the address its profile answers; a token not here is refused (401). */
    private final Map<String, String> users = new ConcurrentHashMap<>();
    private final AtomicInteger profiles = new AtomicInteger();
    /** When set, a profile request waits for it (at most 5 s) before answering. */
    private volatile CountDownLatch hold;
    private volatile boolean heldUntilReleased;
    private final CountDownLatch arrived = new CountDownLatch(1);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/gmail/v1/users/me/profile", this::profile);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void profile(HttpExchange exchange) throws IOException {
        try (exchange) {
            profiles.incrementAndGet();
            arrived.countDown();
            CountDownLatch h = hold;
            if (h != null) {
                try {
                    heldUntilReleased = h.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            String address = authorization == null ? null : users.get(authorization.substring("Bearer ".length()));
            byte[] body = (address == null
                    ? "{\"error\": {\"code\": 401, \"message\": \"Invalid Credentials\", \"errors\": [{\"reason\": \"authError\"}]}}"
                    : "{\"emailAddress\": \"" + address + "\", \"historyId\": \"1\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
            exchange.sendResponseHeaders(address == null ? 401 : 200, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    private String profileUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/gmail/v1/users/me/profile";
    }

    /** Asks the profile as Gmail's tools do: through the one call path, as the session's account. */
    private GoogleConnection.WhoIs whoIs(GoogleConnection connection, GoogleCalls calls) {
        return (s, deadline) -> calls.one(s.account(), "gmail users.getProfile", 1, deadline,
                () -> connection.get(s, profileUrl(), GoogleConnection.USER_AGENT, false, BoundedBody.MAX_BYTES,
                        in -> GsonFactory.getDefaultInstance()
                                .fromInputStream(in, Profile.class).getEmailAddress()));
    }

    private static GoogleCalls calls() {
        return new GoogleCalls("Gmail", 60_000_000, 1_000_000, 20, Retry.DEFAULT);
    }

    /** Opens sessions of {@code token} until one acts as its address (the second asks; later ones find the answer). */
    private static GoogleConnection.Session known(GoogleConnection connection, GoogleConnection.WhoIs whoIs, String token)
            throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            GoogleConnection.Session s = connection.sessionFor(token, whoIs);
            if (s.address().isPresent()) {
                return s;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the address of a token was not learned within " + WAIT);
    }

    @Test
    void everyTokenOfOneAddressIsOneAccountWithOnePacerOnceKnownAndAnotherAddressIsNot() throws Exception {
        users.put("ya29.secret-a1", "alice@example.com");
        users.put("ya29.secret-a2", "Alice@Example.com"); // Google's addresses are case-insensitive
        users.put("ya29.secret-b1", "bob@example.com");
        GoogleCalls calls = calls();
        try (GoogleConnection connection = new GoogleConnection(null, null, null, "not signed in")) {
            GoogleConnection.WhoIs whoIs = whoIs(connection, calls);
            GoogleConnection.Session before = connection.sessionFor("ya29.secret-a1", whoIs);
            assertThat(before.account()).as("not known yet: the token alone").isEqualTo(Account.ofToken("ya29.secret-a1"));

            GoogleConnection.Session alice = known(connection, whoIs, "ya29.secret-a1");
            GoogleConnection.Session refreshed = known(connection, whoIs, "ya29.secret-a2");
            GoogleConnection.Session bob = known(connection, whoIs, "ya29.secret-b1");

            assertThat(alice.account()).isEqualTo(refreshed.account()).isNotEqualTo(bob.account());
            assertThat(alice.account().id()).isEqualTo("alice@example.com");
            assertThat(calls.pacer(refreshed.account())).isSameAs(calls.pacer(alice.account())).isNotSameAs(calls.pacer(bob.account()));
            assertThat(alice.credentialKey()).as("the credential stays its own key (the mail index's)")
                    .isNotEqualTo(refreshed.credentialKey()).doesNotContain("secret");
            for (GoogleConnection.Session s : new GoogleConnection.Session[] {before, alice, refreshed, bob}) {
                assertThat(s.account().toString() + s.credentialKey()).doesNotContain("ya29").doesNotContain("secret");
            }
            assertThat(profiles.get()).as("each token asked once").isEqualTo(3);
        }
    }

    @Test
    void whatAPacerLearnedBeforeTheAddressWasKnownCarriesOverToIt() throws Exception {
        users.put("ya29.carol", "carol@example.com");
        GoogleCalls calls = calls();
        try (GoogleConnection connection = new GoogleConnection(null, null, null, "not signed in")) {
            GoogleConnection.WhoIs whoIs = whoIs(connection, calls);
            GoogleConnection.Session alone = connection.sessionFor("ya29.carol", whoIs);
            QuotaPacer learning = calls.pacer(alone.account());
            try (QuotaPacer.Permit permit = learning.acquire(1, 1, Deadline.in(WAIT), "test")) {
                learning.rateLimited(permit, true, null); // a "too many concurrent requests": the cap is cut
            }
            int learned = learning.maxInFlight();
            assertThat(learned).isLessThan(20);

            GoogleConnection.Session carol = known(connection, whoIs, "ya29.carol");
            assertThat(calls.pacer(carol.account())).isSameAs(learning);
        }
    }

    @Test
    void aCredentialSeenOnceIsNeverAskedAndOneSeenAgainIsAskedOnce() throws Exception {
        users.put("ya29.dave", "dave@example.com");
        try (GoogleConnection connection = new GoogleConnection(null, null, null, "not signed in")) {
            GoogleConnection.WhoIs whoIs = whoIs(connection, calls());
            connection.sessionFor("ya29.dave", whoIs);
            Thread.sleep(300); // a lookup started now would have reached the server
            assertThat(profiles.get()).as("one session, as a one-shot call has: nothing asked").isZero();

            known(connection, whoIs, "ya29.dave");
            for (int i = 0; i < 5; i++) {
                assertThat(connection.sessionFor("ya29.dave", whoIs).account().id()).isEqualTo("dave@example.com");
            }
            assertThat(profiles.get()).isEqualTo(1);
        }
    }

    @Test
    void theSessionDoesNotWaitForTheLookup() throws Exception {
        users.put("ya29.erin", "erin@example.com");
        hold = new CountDownLatch(1);
        try (GoogleConnection connection = new GoogleConnection(null, null, null, "not signed in")) {
            GoogleConnection.WhoIs whoIs = whoIs(connection, calls());
            connection.sessionFor("ya29.erin", whoIs);
            GoogleConnection.Session second = connection.sessionFor("ya29.erin", whoIs); // asks, in the background
            assertThat(second.account()).as("returned before the answer: the token alone").isEqualTo(Account.ofToken("ya29.erin"));
            assertThat(arrived.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the lookup went out").isTrue();
            hold.countDown();
            assertThat(known(connection, whoIs, "ya29.erin").account().id()).isEqualTo("erin@example.com");
            assertThat(heldUntilReleased).as("the lookup was still waiting when the session was handed out").isTrue();
        }
    }

    @Test
    void aLookupThatFailsLeavesTheTokenItsOwnAccountAndIsNotAskedOnEverySession() throws Exception {
        // no user has this token: the profile is refused
        try (GoogleConnection connection = new GoogleConnection(null, null, null, "not signed in")) {
            GoogleConnection.WhoIs whoIs = whoIs(connection, calls());
            connection.sessionFor("ya29.nobody", whoIs);
            connection.sessionFor("ya29.nobody", whoIs);
            assertThat(arrived.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            Thread.sleep(300); // the refusal is back
            for (int i = 0; i < 5; i++) {
                assertThat(connection.sessionFor("ya29.nobody", whoIs).account()).isEqualTo(Account.ofToken("ya29.nobody"));
            }
            assertThat(profiles.get()).as("asked again only after " + Addresses.RETRY_AFTER).isEqualTo(1);
        }
    }
}
