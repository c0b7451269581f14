package dev.agenttools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The settings read once: defaults as Google publishes them, and a bad value named with what is allowed. */
class SettingsTest {
    @Test
    void calendarDefaultsToGooglesCalendarAndItsPerUserQuota() {
        var s = Settings.from(Map.of()).calendar();
        assertThat(s.rootUrl()).isEqualTo("https://www.googleapis.com/");
        assertThat(s.quotaPerMinute()).isEqualTo(600);
        assertThat(Settings.from(Map.of("AGENT_TOOLS_CALENDAR_ROOT_URL", "http://127.0.0.1:8080")).calendar().rootUrl())
                .isEqualTo("http://127.0.0.1:8080/");
    }

    @Test
    void aBadCalendarRootUrlOrQuotaNamesTheVariableAndWhatIsAllowed() {
        assertThatThrownBy(() -> Settings.from(Map.of("AGENT_TOOLS_CALENDAR_ROOT_URL", "ftp://x/")).calendar())
                .hasMessageContaining("AGENT_TOOLS_CALENDAR_ROOT_URL").hasMessageContaining("http(s) URL").hasMessageContaining("ftp://x/");
        assertThatThrownBy(() -> Settings.from(Map.of("AGENT_TOOLS_CALENDAR_ROOT_URL", "http://host/?q=1")).calendar())
                .hasMessageContaining("no user, query or fragment");
        assertThatThrownBy(() -> Settings.from(Map.of("AGENT_TOOLS_CALENDAR_QUOTA", "lots")).calendar())
                .hasMessageContaining("AGENT_TOOLS_CALENDAR_QUOTA").hasMessageContaining("whole number").hasMessageContaining("lots");
        assertThatThrownBy(() -> Settings.from(Map.of("AGENT_TOOLS_CALENDAR_QUOTA", "0")).calendar())
                .hasMessageContaining("AGENT_TOOLS_CALENDAR_QUOTA").hasMessageContaining("from 1 up");
    }

    @Test
    void aConfigFileKeyThatNoSettingIsIsWarnedAboutOnceWithTheNearestName(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("config.properties");
        java.nio.file.Files.writeString(file, """
                AGENT_TOOLS_GMAIL_QOUTA=6000
                GMAIL_MAX_IN_FLIGHT=4
                AGENT_TOOLS_CACHE=off
                SOMETHING_ELSE_ENTIRELY=1
                """);
        List<String> warnings = new ArrayList<>();
        Map<String, String> values = Settings.read(Map.of("AGENT_TOOLS_CONFIG", file.toString()), warnings::add);

        assertThat(values).containsEntry("AGENT_TOOLS_CACHE", "off").containsEntry("AGENT_TOOLS_GMAIL_QOUTA", "6000");
        assertThat(warnings).containsExactly(
                "agent-tools: the config file sets AGENT_TOOLS_GMAIL_QOUTA, which no setting is; it is ignored"
                        + " (did you mean AGENT_TOOLS_GMAIL_QUOTA?)",
                "agent-tools: the config file sets GMAIL_MAX_IN_FLIGHT, which no setting is; it is ignored"
                        + " (did you mean AGENT_TOOLS_GMAIL_MAX_IN_FLIGHT?)",
                "agent-tools: the config file sets SOMETHING_ELSE_ENTIRELY, which no setting is; it is ignored"
                        + " (docs/configuration.md lists them)");
        assertThat(warnings).as("no value is shown: a misspelt token setting holds a secret").noneMatch(w -> w.contains("6000"));

        Settings.read(Map.of("AGENT_TOOLS_CONFIG", file.toString()), warnings::add);
        assertThat(warnings).as("once a process, though several commands read the file").hasSize(3);
    }

    @Test
    void aVeryLongUnknownKeyIsCutInItsWarning() {
        String key = "X".repeat(10_000);
        assertThat(KnownSettings.warnings(List.of(key))).singleElement()
                .satisfies(w -> assertThat(w.length()).isLessThan(KnownSettings.MAX_KEY_SHOWN + 120));
        assertThat(KnownSettings.names()).contains("AGENT_TOOLS_GMAIL_QUOTA", "AGENT_TOOLS_CONFIG");
    }
}
