package dev.agenttools.tool;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The JSON-lines loop in-process: every line answered, ids matched, long lines skipped, end of input drains. */
class StdioServerTest {

    private static List<JsonNode> serve(byte[] input) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ToolProtocol protocol = new ToolProtocol(ToolRegistry.builder().tool(new ToolProtocolTest.EchoTool(null, 0)).build());
        new StdioServer(protocol, new ByteArrayInputStream(input), out).run();
        List<JsonNode> answers = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                answers.add(Json.MAPPER.readTree(line));
            }
        }
        return answers;
    }

    @Test
    void answersEveryLineAndEchoesIds() throws Exception {
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            in.append("{\"id\": \"r").append(i).append("\", \"command\": \"test.echo\", \"params\": {\"n\": ").append(i).append("}}\n");
        }
        in.append("not json\n\n{\"id\": 999, \"command\": \"tools.list\"}"); // last line without a newline
        List<JsonNode> answers = serve(in.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(answers).hasSize(203);
        Set<String> ids = new HashSet<>();
        for (JsonNode a : answers) {
            if (a.has("id") && a.get("id").asText().startsWith("r")) {
                assertThat(a.get("data").get("n").asInt()).isEqualTo(Integer.parseInt(a.get("id").asText().substring(1)));
                ids.add(a.get("id").asText());
            }
        }
        assertThat(ids).hasSize(200);
        assertThat(answers.stream().filter(a -> a.get("status").asText().equals("error"))).hasSize(2);
    }

    @Test
    void skipsALineOverOneMegabyteAndGoesOn() throws Exception {
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(("{\"command\": \"test.echo\", \"params\": {\"big\": \"" + "x".repeat(2 * StdioServer.MAX_LINE_BYTES) + "\"}}\n")
                .getBytes(StandardCharsets.UTF_8));
        in.writeBytes("{\"id\": 1, \"command\": \"tools.list\"}\n".getBytes(StandardCharsets.UTF_8));
        List<JsonNode> answers = serve(in.toByteArray());
        assertThat(answers).hasSize(2);
        assertThat(answers).anySatisfy(a -> assertThat(a.path("error").path("message").asText()).contains("over 1048576 bytes"));
        assertThat(answers).anySatisfy(a -> assertThat(a.path("id").asInt()).isEqualTo(1));
    }
}
