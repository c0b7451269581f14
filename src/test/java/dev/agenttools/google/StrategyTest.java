package dev.agenttools.google;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one strategy implementation Gmail and Calendar share, against a source that records how it was asked. */
class StrategyTest {
    /** Answers "v" + item; records each batch's size and the most batches in flight at once. */
    private static final class RecordingSource implements Strategy.Source<Integer, String> {
        final List<Integer> batchSizes = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        final AtomicInteger singles = new AtomicInteger();
        /** Batches wait here until this many are in flight at once (or a second passes): proves they overlap. */
        final java.util.concurrent.CountDownLatch together;
        boolean dropLast;

        RecordingSource(int together) {
            this.together = new java.util.concurrent.CountDownLatch(together);
        }

        @Override
        public String one(Integer item) {
            singles.incrementAndGet();
            return "v" + item;
        }

        @Override
        public Map<Integer, String> batch(List<Integer> items) throws InterruptedException {
            batchSizes.add(items.size());
            peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            together.countDown();
            together.await(1, java.util.concurrent.TimeUnit.SECONDS);
            inFlight.decrementAndGet();
            Map<Integer, String> out = new LinkedHashMap<>();
            for (int i = items.size() - 1; i >= 0; i--) { // any order: the strategy puts them back in the items' order
                if (!(dropLast && items.get(i) == 99)) {
                    out.put(items.get(i), "v" + items.get(i));
                }
            }
            return out;
        }
    }

    private static List<Integer> items(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    @Test
    void everyStrategyAnswersOneValuePerItemInTheItemsOrder() throws InterruptedException {
        List<String> expected = items(100).stream().map(i -> "v" + i).toList();
        for (Strategy s : Strategy.values()) {
            assertThat(s.fetch(items(100), new RecordingSource(1), new Strategy.Limits(20, 50), Deadline.in(Duration.ofSeconds(10)), "t"))
                    .as(s.wireName()).isEqualTo(expected);
        }
    }

    @Test
    void batchChunksAreAtMostTheInFlightCapAndGoOutTogetherWithinIt() throws InterruptedException {
        // cap 20, batch size 50: chunks of 20 (each part counts against the cap), one chunk at a time
        RecordingSource capped = new RecordingSource(1);
        Strategy.BATCH.fetch(items(100), capped, new Strategy.Limits(20, 50), Deadline.in(Duration.ofSeconds(10)), "t");
        assertThat(capped.batchSizes).containsOnly(20).hasSize(5);
        assertThat(capped.peak.get()).isEqualTo(1);
        // cap 40, batch size 10: chunks of 10, four at once (they wait for one another, so they must overlap)
        RecordingSource parallel = new RecordingSource(4);
        Strategy.BATCH.fetch(items(100), parallel, new Strategy.Limits(40, 10), Deadline.in(Duration.ofSeconds(10)), "t");
        assertThat(parallel.batchSizes).containsOnly(10).hasSize(10);
        assertThat(parallel.peak.get()).isEqualTo(4);
        assertThat(parallel.singles.get()).isZero();
    }

    @Test
    void autoFetchesOneItemOnItsOwnAndSeveralConcurrently() {
        assertThat(Strategy.AUTO.resolve(1)).isEqualTo(Strategy.SEQUENTIAL);
        assertThat(Strategy.AUTO.resolve(0)).isEqualTo(Strategy.SEQUENTIAL);
        assertThat(Strategy.AUTO.resolve(2)).isEqualTo(Strategy.CONCURRENT);
        assertThat(Strategy.BATCH.resolve(1)).isEqualTo(Strategy.BATCH);
        assertThat(Strategy.NAMES).containsExactly("auto", "sequential", "concurrent", "batch");
    }

    @Test
    void anItemABatchLeavesUnansweredIsAnInternalErrorNotANull() {
        RecordingSource source = new RecordingSource(1);
        source.dropLast = true;
        assertThatThrownBy(() -> Strategy.BATCH.fetch(items(100), source, new Strategy.Limits(20, 50),
                Deadline.in(Duration.ofSeconds(10)), "gmail messages.get x100"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ToolException.Kind.INTERNAL);
                    assertThat(e.getMessage()).contains("gmail messages.get x100").contains("99");
                });
    }
}
