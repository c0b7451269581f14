package dev.agenttools.gmail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.Retry;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls a {@link HostileGmail} (its root URL the argument) from a JVM of its own, for {@link HostileUpstreamTest} to
 * run with a small heap: get_email of f1, f2 and f4, then a list after printing {@code listing 4000000} and a list
 * after printing {@code listing 10}, each list once a line arrives on stdin (the test has set the server's answer
 * then). Prints one line per call: {@code get ID: CODE: MESSAGE}, {@code list N: CODE: MESSAGE} or
 * {@code list N: COUNT emails, errors [IDS]}.
 */
final class HostileCalls {
    private HostileCalls() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ToolRegistry tools = HandBuilt.registry(ToolRegistry.builder(), GmailSettings.forRoot(args[0])
                .withPacing(60_000_000, 1_000_000, 50), Retry.DEFAULT)) {
            for (String id : List.of("f1", "f2", "f4")) {
                System.out.println("get " + id + ": " + outcome(tools, GmailTools.GET,
                        "{\"message_id\":\"" + id + "\",\"timeout_ms\":30000}"));
            }
            for (String listed : List.of("4000000", "10")) {
                System.out.println("listing " + listed);
                System.out.flush();
                stdin.readLine();
                System.out.println("list " + listed + ": " + outcome(tools, GmailTools.LIST,
                        "{\"max_results\":10,\"strategy\":\"concurrent\",\"timeout_ms\":30000}"));
            }
        }
        System.out.flush();
    }

    private static String outcome(ToolRegistry tools, String tool, String params) {
        try {
            JsonNode data = tools.call(ToolCall.of(tool, (ObjectNode) Json.MAPPER.readTree(params))).data();
            if (!data.has("emails")) {
                return "ok";
            }
            List<String> errors = new ArrayList<>();
            if (data.has("errors")) {
                data.get("errors").forEach(e -> errors.add(e.get("id").asText()));
            }
            return data.get("emails").size() + " emails, errors " + errors;
        } catch (ToolException e) {
            return e.kind().code() + ": " + e.getMessage();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
