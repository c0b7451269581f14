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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        final CountDownLatch together;
        boolean dropLast;

        RecordingSource(int together) {
            this.together = new CountDownLatch(together);
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
            together.await(1, TimeUnit.SECONDS);
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
    void batchChunksAreAboutTheRootOfTheCountAtMostTheCapAndGoOutTogetherWithinIt() throws InterruptedException {
        // cap 20, batch size 50, 100 items: ten chunks of 10 (the root), two at once (each part counts against the cap)
        RecordingSource capped = new RecordingSource(2);
        Strategy.BATCH.fetch(items(100), capped, new Strategy.Limits(20, 50), Deadline.in(Duration.ofSeconds(10)), "t");
        assertThat(capped.batchSizes).containsOnly(10).hasSize(10);
        assertThat(capped.peak.get()).isEqualTo(2);
        // cap 40, batch size 5: chunks of 5 (the batch size is below the root), eight at once
        RecordingSource parallel = new RecordingSource(8);
        Strategy.BATCH.fetch(items(100), parallel, new Strategy.Limits(40, 5), Deadline.in(Duration.ofSeconds(10)), "t");
        assertThat(parallel.batchSizes).containsOnly(5).hasSize(20);
        assertThat(parallel.peak.get()).isEqualTo(8);
        assertThat(parallel.singles.get()).isZero();
        // cap 4 is below the root of 100: chunks of 4, one at a time
        RecordingSource narrow = new RecordingSource(1);
        Strategy.BATCH.fetch(items(100), narrow, new Strategy.Limits(4, 50), Deadline.in(Duration.ofSeconds(10)), "t");
        assertThat(narrow.batchSizes).containsOnly(4).hasSize(25);
        assertThat(narrow.peak.get()).isEqualTo(1);
    }

    @Test
    void tenItemsGoAsThreeBatchesAtOnceNotOneThatWaitsForAllTen() throws InterruptedException {
        RecordingSource source = new RecordingSource(3);
        Strategy.BATCH.fetch(items(10), source, new Strategy.Limits(50, 50), Deadline.in(Duration.ofSeconds(10)), "t");
        assertThat(source.batchSizes).containsExactlyInAnyOrder(4, 3, 3);
        assertThat(source.peak.get()).isEqualTo(3);
        assertThat(Strategy.chunkSizes(10, 50, 50)).containsExactly(4, 3, 3);
        assertThat(Strategy.chunkSizes(1, 50, 50)).containsExactly(1);
        assertThat(Strategy.chunkSizes(0, 50, 50)).isEmpty();
        assertThat(Strategy.chunkSizes(500, 50, 50)).hasSize(22).allSatisfy(n -> assertThat(n).isBetween(22, 23))
                .satisfies(sizes -> assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(500));
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
