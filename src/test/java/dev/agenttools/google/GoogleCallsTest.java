package dev.agenttools.google;

import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpRequestFactory;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The one request path: its HTTP timeouts come from the call's deadline, and its answers teach the user's pacer. */
class GoogleCallsTest {
    private static final Retry RETRY = new Retry(Duration.ofMillis(50), Duration.ofMillis(200), 8);

    @Test
    @Timeout(20)
    void aRequestToAServerThatNeverAnswersEndsAtTheDeadlineOnItsOwn() throws Exception {
        // a server that accepts and never answers: only the request's own read timeout can end the wait (no FanOut here)
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(blackHole.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            GoogleCalls calls = new GoogleCalls("Gmail", 15_000, 250, 20, RETRY);
            HttpRequestFactory requests = JdkHttpTransport.http2(Duration.ofSeconds(5), null).createRequestFactory(GoogleCalls::limit);
            GenericUrl url = new GenericUrl("http://127.0.0.1:" + blackHole.getLocalPort() + "/gmail/v1/users/me/messages");
            // once untimed first: the first call loads the HTTP stack's classes, which beside a busy suite took over
            // 3 s of the timed deadline (the bound below is about the request's timeout, not the JVM's warm-up)
            catchThrowableOfType(ToolException.class, () -> calls.one(Account.ofToken("t"), "gmail messages.list",
                    5, Deadline.in(Duration.ofMillis(300)), () -> requests.buildGetRequest(url).execute()));
            Deadline deadline = Deadline.in(Duration.ofMillis(800));

            ToolException e = catchThrowableOfType(ToolException.class, () -> calls.one(Account.ofToken("t"), "gmail messages.list",
                    5, deadline, () -> requests.buildGetRequest(url).execute()));

            assertThat(e.kind()).isEqualTo(ToolException.Kind.DEADLINE);
            assertThat(deadline.elapsed()).isLessThan(Duration.ofMillis(800 + 500));
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void requestsTakeTheirTimeoutsFromWhatIsLeftOfTheDeadline() throws Exception {
        GoogleCalls calls = new GoogleCalls("Gmail", 15_000, 250, 20, RETRY);
        HttpRequestFactory requests = JdkHttpTransport.http2(Duration.ofSeconds(5), null).createRequestFactory(GoogleCalls::limit);
        GenericUrl url = new GenericUrl("http://127.0.0.1:9/");

        HttpRequest outside = requests.buildGetRequest(url);
        HttpRequest inside = calls.one(Account.ofToken("t"), "build", 0, Deadline.in(Duration.ofMillis(3_000)),
                () -> requests.buildGetRequest(url));

        assertThat(outside.getReadTimeout()).isEqualTo(60_000);
        assertThat(outside.getConnectTimeout()).isEqualTo(2_000);
        assertThat(outside.getNumberOfRetries()).isZero();
        assertThat(inside.getReadTimeout()).isBetween(1, 3_000);
        assertThat(inside.getConnectTimeout()).isBetween(1, 2_000);
    }

    @Test
    void eachAccountHasItsOwnPacer() {
        GoogleCalls calls = new GoogleCalls("Gmail", 15_000, 250, 20, RETRY);
        QuotaPacer amy = calls.pacer(Account.ofToken("amy's token"));

        assertThat(calls.pacer(Account.ofToken("amy's token"))).isSameAs(amy);
        assertThat(calls.pacer(Account.ofToken("bob's token"))).isNotSameAs(amy);
        assertThat(calls.pacer(Account.STORED_SIGN_IN)).isNotSameAs(amy);
    }
}
