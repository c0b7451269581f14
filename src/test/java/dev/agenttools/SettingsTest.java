package dev.agenttools;

import org.junit.jupiter.api.Test;

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
}
