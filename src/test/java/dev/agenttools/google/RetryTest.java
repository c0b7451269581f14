package dev.agenttools.google;

import com.fasterxml.jackson.core.JsonParseException;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpResponseException;
import com.google.gson.stream.MalformedJsonException;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Which failures are retried, how long the backoff waits, and that it never waits past the deadline; in virtual time. */
class RetryTest {
    private static final String OPERATION = "gmail messages.get 42";
    private static final Duration HOUR = Duration.ofHours(1);
    private final VirtualTime time = new VirtualTime();

    /** Throws the given failures in turn, then answers "done"; counts its attempts. */
    private static final class FailsThenAnswers implements Retry.Call<String> {
        private final Deque<Exception> failures;
        int attempts;

        FailsThenAnswers(Exception... failures) {
            this.failures = new ArrayDeque<>(List.of(failures));
        }

        @Override
        public String execute() throws Exception {
            attempts++;
            Exception next = failures.poll();
            if (next != null) {
                throw next;
            }
            return "done";
        }
    }

    /** Throws the same failure every time; counts its attempts. */
    private static final class AlwaysFails implements Retry.Call<String> {
        private final Exception failure;
        int attempts;

        AlwaysFails(Exception failure) {
            this.failure = failure;
        }

        @Override
        public String execute() throws Exception {
            attempts++;
            throw failure;
        }
    }

    private static HttpResponseException http(int status) {
        return new HttpResponseException.Builder(status, "Status " + status, new HttpHeaders()).build();
    }

    private static HttpResponseException retryAfter(String value) {
        return new HttpResponseException.Builder(503, "Service Unavailable", new HttpHeaders().setRetryAfter(value)).build();
    }

    private static GoogleJsonResponseException forbidden(String reason) {
        GoogleJsonError.ErrorInfo info = new GoogleJsonError.ErrorInfo();
        info.setReason(reason);
        GoogleJsonError details = new GoogleJsonError();
        details.setCode(403);
        details.setMessage("Forbidden because " + reason);
        details.setErrors(List.of(info));
        return new GoogleJsonResponseException(new HttpResponseException.Builder(403, "Forbidden", new HttpHeaders()), details);
    }

    /** A 403 in Google's newer error format: a message and a status, but no errors list and so no reason. */
    private static GoogleJsonResponseException forbiddenWithoutReason() {
        GoogleJsonError details = new GoogleJsonError();
        details.setCode(403);
        details.setMessage("The caller does not have permission");
        details.set("status", "PERMISSION_DENIED");
        return new GoogleJsonResponseException(new HttpResponseException.Builder(403, "Forbidden", new HttpHeaders()), details);
    }

    static Stream<Exception> retryable() {
        return Stream.of(http(429), http(500), http(502), http(503), http(504), forbidden("rateLimitExceeded"),
                forbidden("userRateLimitExceeded"), new IOException("Connection reset"),
                new HttpTimeoutException("request timed out"), new EOFException("EOF reached while reading"),
                new IOException("Received RST_STREAM: Internal error"), new IOException("Received RST_STREAM: Stream cancelled"));
    }

    @ParameterizedTest
    @MethodSource("retryable")
    void retriesWhatARetryCanFix(Exception failure) throws Exception {
        FailsThenAnswers call = new FailsThenAnswers(failure);

        String answer = new Retry(Duration.ofMillis(100), Duration.ofSeconds(2), 3).run(OPERATION, time.deadline(HOUR), call, time);

        assertThat(answer).isEqualTo("done");
        assertThat(call.attempts).isEqualTo(2);
        assertThat(time.sleeps).hasSize(1);
    }

    static Stream<Arguments> permanent() {
        return Stream.of(Arguments.of(http(400), ToolException.Kind.INVALID_ARGUMENT),
                Arguments.of(http(401), ToolException.Kind.UNAUTHENTICATED),
                Arguments.of(forbidden("insufficientPermissions"), ToolException.Kind.PERMISSION_DENIED),
                Arguments.of(http(403), ToolException.Kind.PERMISSION_DENIED),
                Arguments.of(forbiddenWithoutReason(), ToolException.Kind.PERMISSION_DENIED),
                Arguments.of(http(404), ToolException.Kind.NOT_FOUND),
                Arguments.of(http(409), ToolException.Kind.INTERNAL),
                Arguments.of(new InterruptedIOException("timed out"), ToolException.Kind.DEADLINE),
                Arguments.of(new IllegalStateException("a bug"), ToolException.Kind.UPSTREAM),
                // answers that came but cannot be read: the same server would send the same again
                Arguments.of(new UnreadableAnswer("the answer is larger than 64 MiB, the most read"), ToolException.Kind.INTERNAL),
                Arguments.of(new JsonParseException(null, "Invalid UTF-8 start byte 0xff"), ToolException.Kind.INTERNAL),
                Arguments.of(new MalformedJsonException("Unterminated object"), ToolException.Kind.INTERNAL),
                Arguments.of(new ProtocolException("protocol error: Frame size error"), ToolException.Kind.INTERNAL),
                Arguments.of(new ProtocolException("Invalid status line: \"HTTP/1.1 2OO OK\""), ToolException.Kind.INTERNAL),
                Arguments.of(new IOException("wrapped", new ProtocolException("No status code")), ToolException.Kind.INTERNAL),
                Arguments.of(new IOException("Received RST_STREAM: Protocol error"), ToolException.Kind.INTERNAL));
    }

    @ParameterizedTest
    @MethodSource("permanent")
    void failsAtOnceOnWhatARetryCannotFix(Exception failure, ToolException.Kind kind) {
        AlwaysFails call = new AlwaysFails(failure);

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(call.attempts).isEqualTo(1);
        assertThat(time.sleeps).isEmpty();
        assertThat(e.kind()).isEqualTo(kind);
        assertThat(e).hasMessageStartingWith(OPERATION + " failed").hasMessageContaining("(attempt 1, ").hasCause(failure);
    }

    @Test
    void givesUpAfterTheLastAttemptAndSaysWhichItWas() {
        AlwaysFails call = new AlwaysFails(http(503));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> new Retry(Duration.ofMillis(100), Duration.ofSeconds(2), 4).run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(call.attempts).isEqualTo(4);
        assertThat(time.sleeps).hasSize(3);
        assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
        assertThat(e).hasMessageStartingWith(OPERATION + " failed with HTTP 503: Status 503 (attempt 4, ");
    }

    @Test
    void reportsARateLimitThatOutlastsTheAttemptsAsRateLimited() {
        AlwaysFails call = new AlwaysFails(forbidden("userRateLimitExceeded"));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> new Retry(Duration.ofMillis(100), Duration.ofSeconds(2), 3).run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(call.attempts).isEqualTo(3);
        assertThat(e.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(e).hasMessageStartingWith(OPERATION + " failed with HTTP 403: Forbidden because userRateLimitExceeded (attempt 3, ");
    }

    @Test
    void aSingleAttemptMeansNoRetry() {
        AlwaysFails call = new AlwaysFails(http(503));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> new Retry(Duration.ofMillis(100), Duration.ofSeconds(2), 1).run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(call.attempts).isEqualTo(1);
        assertThat(time.sleeps).isEmpty();
        assertThat(e).hasMessageContaining("(attempt 1, ");
    }

    @Test
    void backsOffExponentiallyWithJitterUpToTheCap() {
        Retry retry = new Retry(Duration.ofMillis(100), Duration.ofSeconds(1), 8);
        AlwaysFails call = new AlwaysFails(http(500));

        catchThrowableOfType(ToolException.class, () -> retry.run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(time.sleeps).hasSize(7);
        for (int attempt = 1; attempt <= 7; attempt++) {
            long ceiling = Math.min(Duration.ofSeconds(1).toNanos(), Duration.ofMillis(100).toNanos() << (attempt - 1));
            assertThat(time.sleeps.get(attempt - 1)).as("wait after attempt %d", attempt).isBetween(ceiling / 2, ceiling);
        }
        List<Long> samples = LongStream.range(0, 200).mapToObj(i -> retry.backoffNanos(3, http(500))).toList();
        assertThat(samples).allSatisfy(w -> assertThat(w).isBetween(200_000_000L, 400_000_000L));
        assertThat(samples.stream().distinct().count()).as("jittered").isGreaterThan(1);
    }

    @Test
    void waitsAsLongAsRetryAfterAsksWhenThatIsLongerThanTheBackoff() throws Exception {
        FailsThenAnswers call = new FailsThenAnswers(retryAfter("3"), retryAfter("Wed, 21 Oct 2015 07:28:00 GMT"));

        String answer = new Retry(Duration.ofMillis(100), Duration.ofSeconds(2), 3).run(OPERATION, time.deadline(HOUR), call, time);

        assertThat(answer).isEqualTo("done");
        assertThat(time.sleeps.getFirst()).isEqualTo(Duration.ofSeconds(3).toNanos());
        // an HTTP date is not parsed: the backoff of attempt 2 stands in
        assertThat(time.sleeps.get(1)).isBetween(Duration.ofMillis(100).toNanos(), Duration.ofMillis(200).toNanos());
    }

    @Test
    void failsAtOnceWithWhatGoogleSaidWhenRetryAfterAsksForMoreThanTheTimeLeft() {
        AlwaysFails call = new AlwaysFails(retryAfter("30"));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(Duration.ofSeconds(10)), call, time));

        assertThat(call.attempts).isEqualTo(1);
        assertThat(time.sleeps).isEmpty();
        assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
        assertThat(e).hasMessageStartingWith(OPERATION + " failed with HTTP 503: Service Unavailable (attempt 1, ")
                .hasMessageEndingWith("; not tried again: the next attempt, 30000 ms from now, would start past the "
                        + "deadline of 10000 ms");
        assertThat(e.sameOnRerun()).as("a rerun the surer way meets the same 503").isTrue();
    }

    @Test
    void countsTheTimeAlreadySleptAgainstTheDeadline() {
        AlwaysFails call = new AlwaysFails(retryAfter("1"));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(Duration.ofMillis(1_500)), call, time));

        // 1 s fits in 1.5 s; the second 1 s would not fit in the 0.5 s left
        assertThat(time.sleeps).containsExactly(Duration.ofSeconds(1).toNanos());
        assertThat(call.attempts).isEqualTo(2);
        assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
        assertThat(e).hasMessageContaining("(attempt 2, ").hasMessageContaining("deadline of 1500 ms");
    }

    @Test
    void neverSleepsPastTheDeadlineHoweverManyAttemptsAreLeft() {
        Duration budget = Duration.ofSeconds(5);
        AlwaysFails call = new AlwaysFails(http(503));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> new Retry(Duration.ofMillis(100), Duration.ofSeconds(1), 1_000).run(OPERATION, time.deadline(budget), call, time));

        assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
        assertThat(time.slept()).isLessThan(budget.toNanos());
        assertThat(call.attempts).isEqualTo(time.sleeps.size() + 1).isLessThan(1_000);
    }

    @Test
    void makesFourAttemptsByDefault() {
        AlwaysFails call = new AlwaysFails(http(500));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(call.attempts).isEqualTo(4);
        assertThat(time.slept()).as("three waits of at most 0.2, 0.4 and 0.8 s").isLessThanOrEqualTo(1_400_000_000L);
        assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
        assertThat(e).hasMessageStartingWith(OPERATION + " failed with HTTP 500: Status 500 (attempt 4, ")
                .hasMessageEndingWith(" ms)");
    }

    @Test
    void aTimeoutWithNoTimeLeftForAnotherAttemptIsTheDeadline() {
        // a slow upstream: the attempts' own timeouts spent the deadline waiting for answers
        AlwaysFails call = new AlwaysFails(new HttpTimeoutException("request timed out"));

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(Duration.ofMillis(500)), call, time));

        assertThat(e.kind()).isEqualTo(ToolException.Kind.DEADLINE);
        assertThat(e).hasMessageStartingWith("deadline of 500 ms leaves no time to retry; last error: ");
    }

    @Test
    void aRateLimitThatOutlastsTheRetriesSaysHowLongToWait() {
        AlwaysFails quota = new AlwaysFails(http(429));
        AlwaysFails asked = new AlwaysFails(new HttpResponseException.Builder(429, "Too Many Requests",
                new HttpHeaders().setRetryAfter("30")).build());

        Retry three = new Retry(Duration.ofMillis(100), Duration.ofSeconds(2), 3);
        ToolException backoff = catchThrowableOfType(ToolException.class,
                () -> three.run(OPERATION, time.deadline(HOUR), quota, time));
        ToolException told = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(Duration.ofSeconds(10)), asked, time));

        // the backoff a fourth attempt would have waited: attempt 3's ceiling is 400 ms
        assertThat(backoff.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(backoff.retryAfter()).isBetween(Duration.ofMillis(200), Duration.ofMillis(400));
        assertThat(backoff).hasMessageContaining("(attempt 3, ")
                .hasMessageEndingWith("; retry after " + backoff.retryAfter().toMillis() + " ms");
        assertThat(told.kind()).isEqualTo(ToolException.Kind.RATE_LIMITED);
        assertThat(told.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(told).hasMessageContaining("(attempt 1, ").hasMessageContaining("deadline of 10000 ms")
                .hasMessageEndingWith("; retry after 30000 ms (Google asked for 30000 ms)");
        assertThat(asked.attempts).isEqualTo(1);
    }

    @Test
    void aConnectionThatCannotBeMadeGetsOneQuickRetry() {
        Unreachable refused = Unreachable.of("gmail.googleapis.com:443",
                new ConnectException(), 3);
        AlwaysFails call = new AlwaysFails(refused);

        ToolException e = catchThrowableOfType(ToolException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(HOUR), call, time));

        assertThat(call.attempts).isEqualTo(2);
        assertThat(time.sleeps).hasSize(1).allSatisfy(w -> assertThat(w).isLessThanOrEqualTo(200_000_000L));
        assertThat(e.kind()).isEqualTo(ToolException.Kind.UPSTREAM);
        assertThat(e).hasMessageStartingWith(OPERATION + " failed: cannot connect to gmail.googleapis.com:443: "
                + "the connection failed (attempt 2, ");
        assertThat(e.sameOnRerun()).isTrue();
    }

    @Test
    void anInterruptDuringTheBackoffEndsTheRunWithoutAnotherAttempt() throws Exception {
        CountDownLatch sleeping = new CountDownLatch(1);
        Ticker sleepsForReal = VirtualTime.systemSignalling(sleeping);
        AlwaysFails call = new AlwaysFails(retryAfter("60"));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                Retry.DEFAULT.run(OPERATION, Deadline.in(HOUR), call, sleepsForReal);
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        assertThat(sleeping.await(20, TimeUnit.SECONDS)).isTrue();

        caller.interrupt();

        assertThat(caller.join(Duration.ofSeconds(20))).as("the run ended").isTrue();
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(call.attempts).isEqualTo(1);
    }

    @Test
    void aFailureSeenWhileInterruptedEndsTheRunAsCancelled() {
        // what JdkHttpTransport does when its thread is interrupted: sets the flag and throws InterruptedIOException
        Retry.Call<String> cancelled = () -> {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("GET https://gmail.googleapis.com/... cancelled");
        };

        InterruptedException e = catchThrowableOfType(InterruptedException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(HOUR), cancelled, time));
        boolean stillInterrupted = Thread.interrupted();

        assertThat(e).hasMessage(OPERATION + " cancelled");
        assertThat(stillInterrupted).isTrue();
        assertThat(time.sleeps).isEmpty();
    }

    @Test
    void passesItsOwnErrorsAndInterruptsThroughUnchanged() {
        ToolException paced = new ToolException(ToolException.Kind.DEADLINE, "waiting for a free request slot");
        InterruptedException interrupted = new InterruptedException("stop");
        AlwaysFails pacer = new AlwaysFails(paced);
        AlwaysFails stopped = new AlwaysFails(interrupted);

        assertThat(catchThrowableOfType(ToolException.class, () -> Retry.DEFAULT.run(OPERATION, time.deadline(HOUR), pacer, time)))
                .isSameAs(paced);
        assertThat(catchThrowableOfType(InterruptedException.class,
                () -> Retry.DEFAULT.run(OPERATION, time.deadline(HOUR), stopped, time))).isSameAs(interrupted);
        assertThat(pacer.attempts + stopped.attempts).isEqualTo(2);
        assertThat(time.sleeps).isEmpty();
    }
    @Test
    void sendsAgainOnlyThePartsRefusedForNowAndJudgesEachPartOnItsOwn() throws Exception {
        List<List<String>> sent = new ArrayList<>();
        Retry.Exchange<String, String> batch = (pending, answers) -> {
            sent.add(List.copyOf(pending));
            for (String id : pending) {
                switch (id) {
                    case "busy" -> {
                        if (sent.size() < 3) {
                            answers.failed(id, http(429));
                        } else {
                            answers.ok(id, "busy's message");
                        }
                    }
                    case "bad" -> answers.failed(id, http(400));
                    default -> answers.ok(id, id + "'s message");
                }
            }
        };

        Map<String, Outcome<String>> out = Retry.DEFAULT.runEach(OPERATION, id -> "get " + id, time.deadline(HOUR),
                List.of("a", "busy", "bad", "b"), batch, time);

        assertThat(sent).containsExactly(List.of("a", "busy", "bad", "b"), List.of("busy"), List.of("busy"));
        assertThat(out.keySet()).containsExactly("a", "busy", "bad", "b");
        assertThat(out.get("busy").orThrow()).isEqualTo("busy's message");
        assertThat(out.get("bad")).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
            assertThat(f.error().kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
            assertThat(f.error()).hasMessageStartingWith("get bad failed with HTTP 400");
        });
    }

    @Test
    void aWholeExchangeThatFailsFailsEveryPartAndIsRetriedWhole() throws Exception {
        int[] exchanges = {0};
        Retry.Exchange<String, String> batch = (pending, answers) -> {
            if (++exchanges[0] == 1) {
                throw new IOException("Connection reset");
            }
            pending.forEach(id -> answers.ok(id, id));
        };

        Map<String, Outcome<String>> out = Retry.DEFAULT.runEach(OPERATION, id -> id, time.deadline(HOUR),
                List.of("a", "b"), batch, time);

        assertThat(exchanges[0]).isEqualTo(2);
        assertThat(out.values()).allSatisfy(o -> assertThat(o).isInstanceOf(Outcome.Ok.class));
    }

    @Test
    void partsStillRefusedWhenTimeRunsOutFailWithTheirLastErrorAndTheirAttempts() throws Exception {
        Retry slow = new Retry(Duration.ofSeconds(1), Duration.ofSeconds(8), 4);
        Retry.Exchange<String, String> batch = (pending, answers) -> pending.forEach(id -> answers.failed(id, http(503)));

        Map<String, Outcome<String>> out = slow.runEach(OPERATION, id -> "get " + id,
                time.deadline(Duration.ofMillis(1_500)), List.of("a", "b"), batch, time);

        // the wait after attempt 1 (0.5-1 s) fits in 1.5 s; the one after attempt 2 (1-2 s) does not
        assertThat(out.values()).allSatisfy(o -> assertThat(o).isInstanceOfSatisfying(Outcome.Failed.class, f -> {
            assertThat(f.error().kind()).isEqualTo(ToolException.Kind.UPSTREAM);
            assertThat(f.attempts()).isEqualTo(2);
            assertThat(f.error()).hasMessageStartingWith("get ").hasMessageContaining("HTTP 503")
                    .hasMessageContaining("(attempt " + f.attempts() + ", ")
                    .hasMessageContaining("would start past the deadline of 1500 ms");
        }));
        assertThat(time.slept()).isLessThan(Duration.ofMillis(1_500).toNanos());
    }

    @Test
    void readsGmailsRetryTimeFromTheHeaderOrItsMessage() {
        Instant now = Instant.parse("2023-03-07T18:03:10.961Z");
        assertThat(GoogleErrors.retryAfter(retryAfter("7"), now)).isEqualTo(Duration.ofSeconds(7));
        assertThat(GoogleErrors.retryAfter(retryAfter("Tue, 07 Mar 2023 18:03:20 GMT"), now)).isEqualTo(Duration.ofMillis(9_039));
        GoogleJsonError details = new GoogleJsonError();
        details.setCode(403);
        details.setMessage("User-rate limit exceeded.  Retry after 2023-03-07T18:03:15.961Z");
        GoogleJsonResponseException userRate = new GoogleJsonResponseException(
                new HttpResponseException.Builder(403, "Forbidden", new HttpHeaders()), details);
        assertThat(GoogleErrors.retryAfter(userRate, now)).isEqualTo(Duration.ofSeconds(5));
        assertThat(GoogleErrors.retryAfter(userRate, now.plusSeconds(60))).as("already past").isNull();
        assertThat(GoogleErrors.retryAfter(http(429), now)).isNull();
        assertThat(GoogleErrors.retryAfter(retryAfter("Tue, 07 Mar 2023 23:03:20 GMT"), now)).as("at most an hour")
                .isEqualTo(Duration.ofHours(1));
    }

    @Test
    void tellsAConcurrencyRefusalFromAQuotaOne() {
        GoogleJsonError concurrent = new GoogleJsonError();
        concurrent.setCode(429);
        concurrent.setMessage("Too many concurrent requests for user");
        assertThat(GoogleErrors.concurrencyLimited(new GoogleJsonResponseException(
                new HttpResponseException.Builder(429, null, new HttpHeaders()), concurrent))).isTrue();
        assertThat(GoogleErrors.concurrencyLimited(http(429))).isFalse();
        assertThat(GoogleErrors.rateLimited(forbidden("userRateLimitExceeded"))).isTrue();
        assertThat(GoogleErrors.rateLimited(forbidden("insufficientPermissions"))).isFalse();
        assertThat(GoogleErrors.rateLimited(http(503))).isFalse();
    }
}
