package dev.agenttools.mailindex;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The mail index's settings: defaults under the data home, and bad values named with what is allowed. */
class CacheSettingsTest {
    @Test
    void defaultsToAnIndexUnderTheDataHome() {
        CacheSettings s = CacheSettings.fromEnvironment(Map.of("XDG_DATA_HOME", "/data"));
        assertThat(s.mode()).isEqualTo(CacheSettings.Mode.AUTO);
        assertThat(s.file()).isEqualTo(Path.of("/data/agent-tools/mail-index.db"));
        assertThat(s.maxMessages()).isEqualTo(CacheSettings.DEFAULT_MAX_MESSAGES);
        assertThat(CacheSettings.fromEnvironment(Map.of("AGENT_TOOLS_CACHE", " OFF ", "AGENT_TOOLS_CACHE_DB", "/x.db")).enabled()).isFalse();
    }

    @Test
    void badValuesAreNamed() {
        assertThatThrownBy(() -> CacheSettings.fromEnvironment(Map.of("AGENT_TOOLS_CACHE", "sometimes")))
                .hasMessage("AGENT_TOOLS_CACHE must be auto or off, got sometimes");
        assertThatThrownBy(() -> CacheSettings.fromEnvironment(Map.of("AGENT_TOOLS_CACHE_MAX_MESSAGES", "lots")))
                .hasMessage("AGENT_TOOLS_CACHE_MAX_MESSAGES must be a whole number, got \"lots\"");
        assertThatThrownBy(() -> CacheSettings.fromEnvironment(Map.of("AGENT_TOOLS_CACHE_MAX_MESSAGES", "0")))
                .hasMessage("AGENT_TOOLS_CACHE_MAX_MESSAGES must be 1 or more, got 0");
    }
}
