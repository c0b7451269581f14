package dev.agenttools.tracking;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where call records go: an empty variable means the default, and a store path that SQLite would misuse is refused. */
class TrackingSettingsTest {

    @Test
    void anEmptyTrackingDbMeansTheDefaultFile(@TempDir Path data) {
        for (String empty : new String[] {"", "  "}) {
            TrackingSettings s = TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING_DB", empty, "XDG_DATA_HOME", data.toString()));
            assertThat(s.sqliteFile()).isEqualTo(data.resolve("agent-tools").resolve("calls.db"));
        }
    }

    @Test
    void theExitFlushWaitsFiveSecondsUnlessToldOtherwiseAndRefusesNonsense(@TempDir Path data) {
        Map<String, String> base = Map.of("AGENT_TOOLS_TRACKING", "none", "XDG_DATA_HOME", data.toString());
        assertThat(TrackingSettings.fromEnvironment(base).flushTimeout()).isEqualTo(Duration.ofSeconds(5));
        Map<String, String> set = new HashMap<>(base);
        set.put("AGENT_TOOLS_TRACKING_FLUSH_MS", "250");
        assertThat(TrackingSettings.fromEnvironment(set).flushTimeout()).isEqualTo(Duration.ofMillis(250));
        for (String bad : new String[] {"0", "-5", "soon", "600001"}) {
            set.put("AGENT_TOOLS_TRACKING_FLUSH_MS", bad);
            assertThatThrownBy(() -> TrackingSettings.fromEnvironment(set)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("AGENT_TOOLS_TRACKING_FLUSH_MS must be a number of milliseconds 1..600000");
        }
    }

    @Test
    void theJournalIsOnByDefaultInTheDataFolderPerStoreAndOffWhenToldSo(@TempDir Path data) {
        Map<String, String> base = Map.of("AGENT_TOOLS_TRACKING", "dynamodb", "XDG_DATA_HOME", data.toString());
        TrackingSettings on = TrackingSettings.fromEnvironment(base);
        assertThat(on.journal()).isEqualTo(data.resolve("agent-tools/call-journal"));
        assertThat(Tracking.journalFolder(on).getParent()).isEqualTo(on.journal());
        assertThat(Tracking.journalFolder(on).getFileName().toString()).matches("dynamodb-[0-9a-f]{16}");
        Map<String, String> otherTable = new HashMap<>(base);
        otherTable.put("AGENT_TOOLS_DYNAMODB_TABLE", "other");
        assertThat(Tracking.journalFolder(TrackingSettings.fromEnvironment(otherTable))).as("a folder per store")
                .isNotEqualTo(Tracking.journalFolder(on));
        Map<String, String> off = new HashMap<>(base);
        off.put("AGENT_TOOLS_TRACKING_JOURNAL", " OFF ");
        assertThat(TrackingSettings.fromEnvironment(off).journal()).isNull();
        off.put("AGENT_TOOLS_TRACKING_JOURNAL", "sometimes");
        assertThatThrownBy(() -> TrackingSettings.fromEnvironment(off))
                .hasMessage("AGENT_TOOLS_TRACKING_JOURNAL must be on or off, got \"sometimes\"");
    }

    @Test
    void aDevicePathIsAStartUpErrorNamingTheVariable() {
        assertThatThrownBy(() -> TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING_DB", "/dev/full")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AGENT_TOOLS_TRACKING_DB must be a regular file or a path that does not exist yet, got /dev/full")
                .hasMessageContaining("a device");
    }

    @Test
    void aFolderOrAPathUnderAFileIsRefused(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING_DB", dir.toString())))
                .hasMessageContaining("AGENT_TOOLS_TRACKING_DB must be a regular file").hasMessageContaining("a folder");
        Path file = Files.writeString(dir.resolve("plain.txt"), "x");
        assertThatThrownBy(() -> TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING_DB", file.resolve("sub/calls.db").toString())))
                .hasMessageContaining("AGENT_TOOLS_TRACKING_DB must be in a folder").hasMessageContaining(file + " is not a folder");
    }

    @Test
    void acceptsAnExistingFileOrANewOneInFoldersToCreate(@TempDir Path dir) throws Exception {
        Path existing = Files.writeString(dir.resolve("calls.db"), "");
        assertThat(TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING_DB", existing.toString())).sqliteFile()).isEqualTo(existing);
        Path deep = dir.resolve("a/b/calls.db");
        assertThat(TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING_DB", deep.toString())).sqliteFile()).isEqualTo(deep);
        assertThat(dir.resolve("a")).as("checking creates nothing").doesNotExist();
    }

    @Test
    void theSqlitePathIsNotCheckedWhenSqliteIsNotTheStore() {
        assertThat(TrackingSettings.fromEnvironment(Map.of("AGENT_TOOLS_TRACKING", "none", "AGENT_TOOLS_TRACKING_DB", "/dev/full")).sink())
                .isEqualTo(TrackingSettings.Sink.NONE);
    }
}
