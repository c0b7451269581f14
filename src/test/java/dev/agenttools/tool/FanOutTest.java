package dev.agenttools.tool;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class FanOutTest {
    @Test
    void answersInItemOrderWhateverOrderTheTasksEndIn() {
        List<Integer> out = FanOut.map(List.of(30, 0, 20, 10), 4, Deadline.in(Duration.ofSeconds(20)), "test", ms -> {
            Thread.sleep(ms);
            return ms;
        });
        assertThat(out).containsExactly(30, 0, 20, 10);
    }

    @Test
    void failsAtTheFirstFailureEvenBehindATaskStillWaitingAndCancelsIt() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        long start = System.nanoTime();
        ToolException e = catchThrowableOfType(ToolException.class, () -> FanOut.map(List.of(0, 1), 2,
                Deadline.in(Duration.ofSeconds(60)), "test", item -> {
                    if (item == 1) {
                        throw new ToolException(ToolException.Kind.UPSTREAM, "item 1 failed");
                    }
                    try {
                        Thread.sleep(Duration.ofSeconds(60)); // the first item waits for an answer that does not come
                    } catch (InterruptedException cancelled) {
                        interrupted.countDown();
                        throw cancelled;
                    }
                    return item;
                }));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("item 1 failed");
        // read in item order, the failure waited for the first item: the whole 60 s deadline
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(interrupted.await(30, TimeUnit.SECONDS)).as("the waiting task was cancelled").isTrue();
    }

    @Test
    void keepsAtMostParallelismTasksRunning() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        FanOut.map(List.of(1, 2, 3, 4, 5, 6, 7, 8), 3, Deadline.in(Duration.ofSeconds(20)), "test", item -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            Thread.sleep(20);
            running.decrementAndGet();
            return item;
        });
        assertThat(most.get()).isBetween(1, 3);
    }

    @Test
    void answersDeadlineWhenTasksOutliveIt() {
        ToolException e = catchThrowableOfType(ToolException.class, () -> FanOut.map(List.of(0), 1,
                Deadline.in(Duration.ofMillis(200)), "test", item -> {
                    Thread.sleep(Duration.ofSeconds(60));
                    return item;
                }));
        assertThat(e.kind()).isEqualTo(ToolException.Kind.DEADLINE);
    }
}
