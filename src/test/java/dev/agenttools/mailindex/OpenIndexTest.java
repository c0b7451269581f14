package dev.agenttools.mailindex;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The index a service keeps open: what fails the index is dealt with there and the list goes on without it; what
 * fails the list for another reason is the list's own, never taken for the index's.
 */
class OpenIndexTest {
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** What the code under {@code run} printed on stderr. */
    private static String stderrOf(ThrowingRunnable run) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void anUnrelatedFailureOfTheListIsTheListsAndTheIndexStaysOpen(@TempDir Path dir) throws Exception {
        try (OpenIndex open = new OpenIndex(new CacheSettings(CacheSettings.Mode.AUTO, dir.resolve("mail-index.db"), 20))) {
            List<MailIndex> seen = new ArrayList<>();
            IllegalStateException notTheIndexs = new IllegalStateException("a client's own state, not the index's");
            String stderr = stderrOf(() -> assertThatThrownBy(() -> open.use(index -> {
                seen.add(index);
                throw notTheIndexs;
            })).isSameAs(notTheIndexs));
            assertThat(stderr).as("nothing said about the index").isEmpty();
            assertThat(open.use(index -> {
                seen.add(index);
                return index.counts();
            })).hasValue(Map.of());
            assertThat(seen).as("the same index, neither closed nor opened again").hasSize(2).containsOnly(seen.getFirst());
        }
    }

    @Test
    void anIndexThatCannotBeUsedNowIsLeftAloneAndTheListGoesOnWithoutIt(@TempDir Path dir) throws Exception {
        try (OpenIndex open = new OpenIndex(new CacheSettings(CacheSettings.Mode.AUTO, dir.resolve("mail-index.db"), 20))) {
            AtomicInteger runs = new AtomicInteger();
            List<Optional<String>> answers = new ArrayList<>();
            String stderr = stderrOf(() -> {
                answers.add(open.use(index -> {
                    runs.incrementAndGet();
                    throw new MailIndexException.Unavailable("the mail index is busy", null);
                }));
                answers.add(open.use(index -> {
                    runs.incrementAndGet();
                    return "answered from the index";
                }));
            });
            assertThat(answers).containsExactly(Optional.empty(), Optional.empty());
            assertThat(runs).as("not tried again within the minute").hasValue(1);
            assertThat(stderr.lines()).singleElement()
                    .isEqualTo("agent-tools: listing without the mail index for 60 s: the mail index is busy");
        }
    }

    @Test
    void anIndexTurnedOffIsNeverOpened(@TempDir Path dir) throws Exception {
        try (OpenIndex open = new OpenIndex(new CacheSettings(CacheSettings.Mode.OFF, dir.resolve("mail-index.db"), 20))) {
            assertThat(open.use(index -> "answered from the index")).isEmpty();
        }
        assertThat(dir).isEmptyDirectory();
    }
}
