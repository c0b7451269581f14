package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Deadline;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The wire protocol on its own, with hand-written tools: every input gets one well-formed answer. */
public class ToolProtocolTest {
    /** Echoes its params; fails the way {@code fail_with} says, once per {@code times} (the line server's tests use it too). */
    public static final class EchoTool implements Tool {
        final AtomicInteger calls = new AtomicInteger();
        private final ToolException failure;
        private final int failures;

        public EchoTool(ToolException failure, int failures) {
            this.failure = failure;
            this.failures = failures;
        }

        @Override
        public ToolSpec spec() {
            ObjectNode schema = Json.object().put("type", "object");
            schema.putObject("properties").putObject("strategy").put("type", "string");
            return new ToolSpec("test.echo", "Echoes its params.", schema, ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) {
            if (calls.incrementAndGet() <= failures) {
                throw failure;
            }
            String strategy = call.params().path("strategy").asText("concurrent");
            return new ToolResult(call.params(), Backend.valueOf(strategy.toUpperCase(Locale.ROOT)), 1);
        }

        @Override
        public ToolCall fallback(ToolCall failed) {
            return failed.params().path("strategy").asText().equals("sequential") ? null
                    : failed.withParams(failed.params().deepCopy().put("strategy", "sequential"));
        }
    }

    private static ToolProtocol protocol(Tool tool) {
        return new ToolProtocol(ToolRegistry.builder().tool(tool).interceptor(new FallbackInterceptor()).build());
    }

    private static JsonNode answer(ToolProtocol p, String line) throws Exception {
        return Json.MAPPER.readTree(p.answer(line).line());
    }

    @Test
    void answersOkWithDataMetaAndTheEchoedId() throws Exception {
        JsonNode a = answer(protocol(new EchoTool(null, 0)), "{\"id\": 7, \"command\": \"test.echo\", \"params\": {\"x\": 1}}");
        assertThat(a.get("id").asInt()).isEqualTo(7);
        assertThat(a.get("status").asText()).isEqualTo("ok");
        assertThat(a.get("data").get("x").asInt()).isEqualTo(1);
        assertThat(a.get("meta").get("backend").asText()).isEqualTo("concurrent");
        assertThat(a.get("meta").has("duration_ms")).isTrue();
    }

    @Test
    void listsToolsWithTheirSchemas() throws Exception {
        JsonNode a = answer(protocol(new EchoTool(null, 0)), "{\"command\": \"tools.list\"}");
        assertThat(a.get("data").findValuesAsText("command")).containsExactly("tools.list", "test.echo");
        assertThat(a.get("data").get(1).get("params_schema").get("type").asText()).isEqualTo("object");
        assertThat(a.get("data").findValuesAsText("name")).containsExactly("tools_list", "test_echo");
    }

    @Test
    void namesEachToolAsItsTableSays() throws Exception {
        ToolProtocol named = new ToolProtocol(ToolRegistry.builder().tool(new EchoTool(null, 0)).build(),
                Map.of("test.echo", "echo"));
        JsonNode a = answer(named, "{\"command\": \"tools.list\"}");
        assertThat(a.get("data").findValuesAsText("name")).containsExactly("tools_list", "echo");
    }

    @Test
    void answersEveryBadRequestWithANamedError() throws Exception {
        ToolProtocol p = protocol(new EchoTool(null, 0));
        List<String[]> cases = List.of(
                new String[] {"", "empty request"},
                new String[] {"   ", "empty request"},
                new String[] {"{", "not valid JSON"},
                new String[] {"\u0000\u00ff\ufffd garbage", "not valid JSON"},
                new String[] {"[1,2]", "must be a JSON object"},
                new String[] {"\"hello\"", "must be a JSON object"},
                new String[] {"{\"params\": {}}", "command is required"},
                new String[] {"{\"command\": 5}", "command is required"},
                new String[] {"{\"command\": \"nope\"}", "unknown command 'nope'"},
                new String[] {"{\"command\": \"test.echo\", \"params\": [1]}", "params must be a JSON object"},
                new String[] {"{\"command\": \"test.echo\", \"extra\": 1}", "unknown request field 'extra'"},
                new String[] {"{\"id\": {\"a\": 1}, \"command\": \"tools.list\"}", "id must be a string or an integer"},
                new String[] {"[".repeat(5000), "not valid JSON"});
        for (String[] c : cases) {
            JsonNode a = answer(p, c[0]);
            assertThat(a.get("status").asText()).as(c[0]).isEqualTo("error");
            assertThat(a.get("error").get("code").asText()).as(c[0]).isEqualTo("invalid_argument");
            assertThat(a.get("error").get("message").asText()).as(c[0]).contains(c[1]);
        }
        assertThat(p.answer("{\"command\": \"nope\"}").exitStatus()).isEqualTo(2);
    }

    @Test
    void rejectsTrailingContentAndDuplicateKeysInsteadOfDroppingOrOverwriting() throws Exception {
        EchoTool tool = new EchoTool(null, 0);
        ToolProtocol p = protocol(tool);
        List<String[]> cases = List.of(
                new String[] {"{\"id\": 1, \"command\": \"test.echo\"}{\"id\": 2, \"command\": \"test.echo\"}", "more after its JSON object"},
                new String[] {"{\"id\": 1, \"command\": \"test.echo\"} {\"id\": 2}", "more after its JSON object"},
                new String[] {"{\"id\": 1, \"command\": \"test.echo\"} 7", "more after its JSON object"},
                new String[] {"{\"id\": 1, \"command\": \"test.echo\"} trailing", "not valid JSON"},
                new String[] {"{\"id\": 1, \"command\": \"tools.list\", \"command\": \"test.echo\"}", "Duplicate field 'command'"},
                new String[] {"{\"id\": 1, \"command\": \"test.echo\", \"params\": {\"x\": 1, \"x\": 2}}", "Duplicate field 'x'"});
        for (String[] c : cases) {
            JsonNode a = answer(p, c[0]);
            assertThat(a.get("status").asText()).as(c[0]).isEqualTo("error");
            assertThat(a.get("error").get("code").asText()).as(c[0]).isEqualTo("invalid_argument");
            assertThat(a.get("error").get("message").asText()).as(c[0]).contains(c[1]);
        }
        assertThat(tool.calls.get()).as("no request ran").isZero();
        assertThat(answer(p, "{\"command\": \"test.echo\"}  \r\n").get("status").asText()).as("trailing whitespace is fine").isEqualTo("ok");
    }

    @Test
    void fallsBackToSequentialWhenTheFastPathFails() throws Exception {
        EchoTool tool = new EchoTool(new ToolException(ToolException.Kind.UPSTREAM, "gmail 503"), 1);
        JsonNode a = answer(protocol(tool), "{\"command\": \"test.echo\", \"params\": {\"strategy\": \"batch\"}}");
        assertThat(a.get("status").asText()).isEqualTo("ok");
        assertThat(a.get("meta").get("backend").asText()).isEqualTo("fallback");
        assertThat(a.get("data").get("strategy").asText()).isEqualTo("sequential");
        assertThat(tool.calls.get()).isEqualTo(2);
    }

    @Test
    void theFallbackRunsUnderTheSameDeadlineNotARenewedOne() {
        List<Deadline> deadlines = new CopyOnWriteArrayList<>();
        EchoTool echo = new EchoTool(new ToolException(ToolException.Kind.UPSTREAM, "gmail 503"), 1);
        Tool failsFast = new Tool() {
            @Override
            public ToolSpec spec() {
                return echo.spec();
            }

            @Override
            public ToolResult call(ToolCall call) {
                deadlines.add(call.deadline());
                return echo.call(call);
            }

            @Override
            public ToolCall fallback(ToolCall failed) {
                return echo.fallback(failed);
            }
        };
        ToolRegistry registry = ToolRegistry.builder().tool(failsFast).interceptor(new FallbackInterceptor()).build();
        long start = System.nanoTime() - 1_000_000_000L; // the call came in a second ago
        ToolResult r = registry.call(new ToolCall("test.echo", Json.object().put("strategy", "batch").put("timeout_ms", 10_000),
                null, null, start, null));
        assertThat(r.backend()).isEqualTo(Backend.FALLBACK);
        assertThat(deadlines).hasSize(2);
        assertThat(deadlines.get(1)).isSameAs(deadlines.get(0));
        assertThat(deadlines.get(0).startNanos()).isEqualTo(start);
        assertThat(deadlines.get(0).budget()).isEqualTo(Duration.ofSeconds(10));
        assertThat(r.duration()).isGreaterThanOrEqualTo(Duration.ofSeconds(1)); // timed from the call's start, once
    }

    @Test
    void noFallbackWhenTooLittleOfTheDeadlineIsLeft() {
        EchoTool echo = new EchoTool(new ToolException(ToolException.Kind.UPSTREAM, "gmail 503"), 1);
        ToolRegistry registry = ToolRegistry.builder().tool(echo).interceptor(new FallbackInterceptor()).build();
        long start = System.nanoTime() - 8_000_000_000L; // 8 of its 10 s are spent

        assertThatThrownBy(() -> registry.call(new ToolCall("test.echo", Json.object().put("timeout_ms", 10_000), null, null,
                start, null))).isInstanceOf(ToolException.class).hasMessage("gmail 503");
        assertThat(echo.calls.get()).isEqualTo(1);
    }

    @Test
    void doesNotFallBackOnErrorsTheCallerMustFix() throws Exception {
        for (ToolException.Kind kind : List.of(ToolException.Kind.INVALID_ARGUMENT, ToolException.Kind.NOT_FOUND,
                ToolException.Kind.UNAUTHENTICATED, ToolException.Kind.PERMISSION_DENIED, ToolException.Kind.DEADLINE)) {
            EchoTool tool = new EchoTool(new ToolException(kind, "no"), 1);
            JsonNode a = answer(protocol(tool), "{\"command\": \"test.echo\", \"params\": {\"strategy\": \"concurrent\"}}");
            assertThat(a.get("error").get("code").asText()).isEqualTo(kind.code());
            assertThat(tool.calls.get()).as(kind.name()).isEqualTo(1);
        }
        // what the upstream sent, which every strategy would meet again (an unreadable answer, a page token sent twice)
        EchoTool same = new EchoTool(new ToolException(ToolException.Kind.UPSTREAM, "same page token again", null, true), 1);
        JsonNode again = answer(protocol(same), "{\"command\": \"test.echo\", \"params\": {\"strategy\": \"concurrent\"}}");
        assertThat(again.get("error").get("code").asText()).isEqualTo("upstream");
        assertThat(same.calls.get()).as("not rerun sequentially").isEqualTo(1);
        EchoTool sequential = new EchoTool(new ToolException(ToolException.Kind.UPSTREAM, "down"), 1);
        JsonNode a = answer(protocol(sequential), "{\"command\": \"test.echo\", \"params\": {\"strategy\": \"sequential\"}}");
        assertThat(a.get("error").get("code").asText()).isEqualTo("upstream");
        assertThat(sequential.calls.get()).isEqualTo(1);
    }

    @Test
    void anUnexpectedFailureIsAnInternalErrorWithoutATrace() throws Exception {
        Tool broken = new Tool() {
            @Override
            public ToolSpec spec() {
                return new ToolSpec("test.broken", "Throws.", Json.object(), ToolSpec.Effect.READ);
            }

            @Override
            public ToolResult call(ToolCall call) {
                throw new IllegalStateException("boom");
            }
        };
        JsonNode a = answer(new ToolProtocol(ToolRegistry.builder().tool(broken).build()), "{\"command\": \"test.broken\"}");
        assertThat(a.get("error").get("code").asText()).isEqualTo("internal");
        assertThat(a.toString()).doesNotContain("\tat ").doesNotContain("Exception.java");
    }
}
