package dev.agenttools.habit;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where the settings put the habits: the SQLite file unless a DynamoDB table is named or the state is shared there. */
class HabitSettingsTest {
    @Test
    void withoutATableTheHabitsAreInTheSqliteFile() {
        assertThat(HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_DB", "/x/h.db")).table()).isNull();
        assertThat(HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_SHARED_STATE", "none")).table()).isNull();
        assertThat(HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_DYNAMODB_ENDPOINT", "http://127.0.0.1:8000")).table())
                .as("tracking's endpoint alone moves nothing").isNull();
    }

    @Test
    void aNamedTableTakesTheEndpointAndRegionAsTrackingReadsThem() {
        HabitSettings s = HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_TABLE", " my-habits ",
                "AGENT_TOOLS_DYNAMODB_ENDPOINT", "http://127.0.0.1:8000", "AWS_REGION", "eu-west-3", "AWS_DEFAULT_REGION", "us-west-2"));
        assertThat(s.table()).isEqualTo(new HabitSettings.DynamoTable("my-habits", URI.create("http://127.0.0.1:8000"), "eu-west-3"));
        assertThat(HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_TABLE", "t-1", "AWS_DEFAULT_REGION", "us-west-2")).table())
                .isEqualTo(new HabitSettings.DynamoTable("t-1", null, "us-west-2"));
    }

    @Test
    void sharedStateInDynamoDbPutsTheHabitsInTheDefaultTable() {
        HabitSettings s = HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_SHARED_STATE", "dynamodb"));
        assertThat(s.table()).isEqualTo(new HabitSettings.DynamoTable("agent-tools-habits", null, "us-east-1"));
        assertThat(HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_SHARED_STATE", "dynamodb", "AGENT_TOOLS_HABIT_TABLE", "mine"))
                .table().table()).isEqualTo("mine");
    }

    @Test
    void aSqliteFileAndATableTogetherAreRefusedNamingBoth() {
        assertThatThrownBy(() -> HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_DB", "/x/h.db", "AGENT_TOOLS_HABIT_TABLE", "t-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AGENT_TOOLS_HABIT_DB").hasMessageContaining("AGENT_TOOLS_HABIT_TABLE is set");
        assertThatThrownBy(() -> HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_DB", "/x/h.db", "AGENT_TOOLS_SHARED_STATE", "dynamodb")))
                .hasMessageContaining("AGENT_TOOLS_HABIT_DB").hasMessageContaining("AGENT_TOOLS_SHARED_STATE=dynamodb");
    }

    @Test
    void aBadTableNameOrEndpointIsRefusedNamingTheVariable() {
        assertThatThrownBy(() -> HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_TABLE", "no spaces")))
                .hasMessageContaining("AGENT_TOOLS_HABIT_TABLE must be 3..255 of A-Z a-z 0-9 . _ -, got \"no spaces\"");
        assertThatThrownBy(() -> HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_TABLE", "t-1",
                "AGENT_TOOLS_DYNAMODB_ENDPOINT", "not a url"))).hasMessageContaining("AGENT_TOOLS_DYNAMODB_ENDPOINT must be a URL");
        assertThatThrownBy(() -> HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_TABLE", "t-1",
                "AGENT_TOOLS_DYNAMODB_ENDPOINT", "localhost:8000"))).hasMessageContaining("AGENT_TOOLS_DYNAMODB_ENDPOINT must be a URL");
    }

    @Test
    void aServiceOfManyUsersKeepsTheTable() {
        HabitSettings s = HabitSettings.fromEnvironment(Map.of("AGENT_TOOLS_HABIT_USER_PARAM", "on", "AGENT_TOOLS_HABIT_TABLE", "t-1"));
        assertThat(s.forManyUsers().table()).isEqualTo(s.table());
    }
}
