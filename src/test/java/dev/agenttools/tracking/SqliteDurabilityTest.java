package dev.agenttools.tracking;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The SQLite store under real processes: killed with SIGKILL mid-write, and two writers on one file. */
@Tag("process")
class SqliteDurabilityTest {

    private static Process writer(Path db, int count, String agent) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), WriterMain.class.getName(), db.toString(), Integer.toString(count), agent)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static long count(Path db, String where) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM calls" + where)) {
            return rs.getLong(1);
        }
    }

    private static String integrity(Path db) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             ResultSet rs = c.createStatement().executeQuery("PRAGMA integrity_check")) {
            return rs.getString(1);
        }
    }

    @Test
    void aKillDuringWritesLosesAtMostTheUnflushedBufferAndNeverCorruptsTheFile(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Process p = writer(db, 10_000_000, "crash");
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long acknowledged = 0;
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("written ")) {
                acknowledged = Long.parseLong(line.substring(8));
                if (acknowledged >= 5_000) {
                    break;
                }
            }
        }
        p.destroyForcibly(); // SIGKILL, in the middle of writing
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(acknowledged).isGreaterThanOrEqualTo(5_000);
        assertThat(integrity(db)).isEqualTo("ok");
        long kept = count(db, "");
        assertThat(kept).isGreaterThanOrEqualTo(acknowledged); // nothing the writer had flushed is lost
        assertThat(new SqliteSink(db).read(Instant.EPOCH, null)).hasSize((int) kept);
    }

    @Test
    void twoProcessesWriteToOneFile(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("calls.db");
        Process a = writer(db, 3_000, "agent-a");
        Process b = writer(db, 3_000, "agent-b");
        // the "done" line, wherever the progress printer's lines fall around it
        String lastA = new String(a.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> l.startsWith("done ")).findFirst().orElse("no done line");
        String lastB = new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> l.startsWith("done ")).findFirst().orElse("no done line");
        assertThat(a.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(b.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(lastA).startsWith("done 3000 "); // all written (the writer waits out a full queue)
        assertThat(lastB).startsWith("done 3000 ");
        assertThat(count(db, " WHERE agent_name = 'agent-a'")).isEqualTo(3_000);
        assertThat(count(db, " WHERE agent_name = 'agent-b'")).isEqualTo(3_000);
        assertThat(integrity(db)).isEqualTo("ok");
    }
}
