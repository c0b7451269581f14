package dev.agenttools.mcp;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** How one input line is classified before the SDK sees it. */
class InboundTest {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static Inbound of(String line) {
        return Inbound.of(line.getBytes(StandardCharsets.UTF_8), MAPPER);
    }

    private static void assertInvalid(String line, int code, boolean withId) {
        assertThat(of(line)).as(line).isInstanceOfSatisfying(Inbound.Invalid.class, i -> {
            assertThat(i.code()).as(line).isEqualTo(code);
            assertThat(i.id() != null).as("id kept for %s", line).isEqualTo(withId);
            assertThat(i.message()).doesNotContain("Exception");
        });
    }

    @Test
    void answersLinesThatAreNotOneJsonValueWithParseErrors() {
        assertInvalid("not json", Inbound.PARSE_ERROR, false);
        assertInvalid("\u0000", Inbound.PARSE_ERROR, false);
        assertInvalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{}", Inbound.PARSE_ERROR, false);
        assertInvalid("[".repeat(100_000), Inbound.PARSE_ERROR, false);
        assertThat(Inbound.of(new byte[] {'"', (byte) 0xc3, '"'}, MAPPER))
                .isInstanceOfSatisfying(Inbound.Invalid.class, i -> assertThat(i.message()).contains("UTF-8"));
    }

    @Test
    void answersMessagesThatAreNotRequestsWithInvalidRequest() {
        for (String line : new String[] {"[]", "1", "null", "\"x\"", "{}", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234,\"method\":\"ping\"}"}) {
            assertInvalid(line, Inbound.INVALID_REQUEST, false);
        }
        assertInvalid("{\"id\":3,\"method\":\"ping\"}", Inbound.INVALID_REQUEST, true);
        assertInvalid("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":7}", Inbound.INVALID_REQUEST, true);
        assertInvalid("{\"jsonrpc\":\"2.0\",\"id\":3,\"params\":{}}", Inbound.INVALID_REQUEST, true);
        assertInvalid("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":[]}", Inbound.INVALID_PARAMS, true);
    }

    @Test
    void tellsRequestsNotificationsResponsesAndBlankLinesApart() {
        assertThat(of("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}")).isInstanceOfSatisfying(Inbound.Request.class,
                r -> assertThat(r.id().asString()).isEqualTo("a"));
        assertThat(of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")).isInstanceOf(Inbound.Notification.class);
        assertThat(of("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}")).isInstanceOf(Inbound.Response.class);
        assertThat(of("  \r")).isInstanceOf(Inbound.Blank.class);
    }
}
