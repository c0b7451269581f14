package dev.agenttools.calendar;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Calendar's settings: defaults as Google publishes them, and a bad value named with what is allowed. */
class CalendarSettingsTest {
    @Test
    void defaultsToGooglesCalendarAndItsPerUserQuota() {
        CalendarSettings s = CalendarSettings.fromEnvironment(Map.of());
        assertThat(s.rootUrl()).isEqualTo("https://www.googleapis.com/");
        assertThat(s.quotaPerMinute()).isEqualTo(600);
        assertThat(CalendarSettings.fromEnvironment(Map.of("AGENT_TOOLS_CALENDAR_ROOT_URL", "http://127.0.0.1:8080")).rootUrl())
                .isEqualTo("http://127.0.0.1:8080/");
    }

    @Test
    void aBadRootUrlOrQuotaNamesTheVariableAndWhatIsAllowed() {
        assertThatThrownBy(() -> CalendarSettings.fromEnvironment(Map.of("AGENT_TOOLS_CALENDAR_ROOT_URL", "ftp://x/")))
                .hasMessageContaining("AGENT_TOOLS_CALENDAR_ROOT_URL").hasMessageContaining("http(s) URL").hasMessageContaining("ftp://x/");
        assertThatThrownBy(() -> CalendarSettings.fromEnvironment(Map.of("AGENT_TOOLS_CALENDAR_ROOT_URL", "http://host/?q=1")))
                .hasMessageContaining("no user, query or fragment");
        assertThatThrownBy(() -> CalendarSettings.fromEnvironment(Map.of("AGENT_TOOLS_CALENDAR_QUOTA", "lots")))
                .hasMessageContaining("AGENT_TOOLS_CALENDAR_QUOTA").hasMessageContaining("whole number").hasMessageContaining("lots");
        assertThatThrownBy(() -> CalendarSettings.fromEnvironment(Map.of("AGENT_TOOLS_CALENDAR_QUOTA", "0")))
                .hasMessageContaining("AGENT_TOOLS_CALENDAR_QUOTA").hasMessageContaining("from 1 up");
    }
}
