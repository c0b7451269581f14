package dev.agenttools.server.oauth;

import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What each tool needs, from its family and its declared effect, and the tools no scope may cover. */
class ScopesTest {
    private static ToolSpec spec(String name, ToolSpec.Effect effect) {
        return new ToolSpec(name, "a tool", Json.object().put("type", "object"), effect);
    }

    @Test
    void aReadNeedsItsFamilysReadOrWriteScopeAndAWriteOnlyItsWriteScope() {
        Map<String, Scopes.Need> needs = Scopes.needs(List.of(spec("habit.list", ToolSpec.Effect.READ),
                spec("habit.create", ToolSpec.Effect.REVERSIBLE), spec("habit.purge", ToolSpec.Effect.IRREVERSIBLE),
                spec("gmail.list-emails", ToolSpec.Effect.READ)));
        assertThat(Scopes.allows("habits.readonly", needs.get("habit.list"))).isTrue();
        assertThat(Scopes.allows("habits", needs.get("habit.list"))).isTrue();
        assertThat(Scopes.allows("gmail.readonly calendar.readonly", needs.get("habit.list"))).isFalse();
        assertThat(Scopes.allows("habits.readonly", needs.get("habit.create"))).isFalse();
        assertThat(Scopes.allows("gmail.readonly habits", needs.get("habit.create"))).isTrue();
        assertThat(Scopes.allows("habits.readonly", needs.get("habit.purge"))).isFalse();
        assertThat(needs.get("habit.create").ask()).isEqualTo("habits");
        assertThat(Scopes.allows("calendar.readonly", needs.get("gmail.list-emails"))).isFalse();
    }

    @Test
    void aToolOfNoFamilyOrAWriteOfAFamilyWithoutAWriteScopeStopsTheServerAtStart() {
        assertThatThrownBy(() -> Scopes.needs(List.of(spec("drive.list-files", ToolSpec.Effect.READ))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drive.list-files").hasMessageContaining("Scopes");
        assertThatThrownBy(() -> Scopes.needs(List.of(spec("gmail.send-email", ToolSpec.Effect.IRREVERSIBLE))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gmail.send-email")
                .hasMessageContaining("no write scope");
    }

    @Test
    void everyToolDeclaresAnEffect() {
        assertThatThrownBy(() -> new ToolSpec("habit.x", "d", Json.object(), null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("effect");
    }
}
