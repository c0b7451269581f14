package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.gmail.GmailToolsTest.fastSettings;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real-world mail nobody here wrote (CPython's email test messages and the Go library enmime's test mail, fetched
 * from Debian by the build) plus our own
 * hand-made cases for every decoding defect found so far, served by the emulator over HTTP and read through the
 * tools: every message must be listed, found and fetched, and its subject, addresses, date, body and attachment
 * names must equal what Python's {@code email} package decodes, or differ in a way documented and reviewed in
 * {@code src/test/resources/realworld/differences.json}. The comparison itself is {@code src/test/python/mail_reference.py}.
 */
@Tag("process")
class RealWorldMailTest {
    private static final Path CORPORA = Path.of("target", "test-corpora");
    private static final Path HAND_MADE = Path.of("src", "test", "resources", "realworld");
    private static final Path WORK = Path.of("target", "realworld");
    private static final String MARKER = "X-Corpus-File";

    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void everyMessageIsListedSearchedAndFetchedAsPythonDecodesIt() throws Exception {
        for (String corpus : List.of("cpython", "enmime")) {
            assertThat(CORPORA.resolve(corpus)).as("a corpus the build fetches (scripts/build/fetch-test-corpora)")
                    .isDirectoryContaining("glob:**.eml");
        }
        Path originals = WORK.resolve("originals");
        Path served = WORK.resolve("mailbox");
        reset(originals);
        reset(served);
        copyCorpus(CORPORA.resolve("cpython"), "cpython-", originals, served);
        copyCorpus(CORPORA.resolve("enmime"), "enmime-", originals, served);
        copyCorpus(HAND_MADE, "ours-", originals, served);

        Path queriesFile = WORK.resolve("queries.json");
        python("queries", originals.toString(), queriesFile.toString());
        JsonNode queries = Json.MAPPER.readTree(queriesFile.toFile());

        Emulator emulator = emulators.start(fastEmulator().mailbox(served.toString()).build());
        ToolRegistry tools = Tools.builder().gmail(fastSettings(emulator)).defaultAccessToken("t").build();
        Map<String, String> fileById = fileNamesById(emulator);
        assertThat(fileById).as("every file loaded").hasSize(countEml(originals));

        ObjectNode out = Json.object();
        fileById.values().forEach(name -> out.putObject(name).put("listed", false).put("searched", false));
        recordListing(tools, fileById, out);
        for (Map.Entry<String, String> e : fileById.entrySet()) {
            ObjectNode entry = (ObjectNode) out.get(e.getValue());
            JsonNode query = queries.path(e.getValue());
            search(tools, e.getKey(), query.path("query").asText("in:inbox"), entry, "searched", "search_error");
            if (query.has("attachment_query")) {
                search(tools, e.getKey(), query.path("attachment_query").asText(), entry, "attachment_searched",
                        "attachment_search_error");
            }
            try {
                entry.set("get", call(tools, GmailTools.GET, Json.object().put("message_id", e.getKey())
                        .put("max_body_chars", 10_000_000)));
            } catch (ToolException failure) {
                entry.put("get_error", failure.kind() + ": " + failure.getMessage());
            }
        }
        Path toolOutput = WORK.resolve("tool-output.json");
        Json.MAPPER.writerWithDefaultPrettyPrinter().writeValue(toolOutput.toFile(), out);

        Path report = WORK.resolve("report.txt");
        int exit = python("compare", originals.toString(), toolOutput.toString(),
                HAND_MADE.resolve("differences.json").toString(), report.toString());
        assertThat(exit).as("undocumented differences or failures; see %s:%n%s", report,
                Files.readString(report)).isZero();
    }

    /** Lists INBOX page by page with every strategy: each must list every message, with the same JSON. */
    private static void recordListing(ToolRegistry tools, Map<String, String> fileById, ObjectNode out) {
        Map<String, List<JsonNode>> pagesByStrategy = new LinkedHashMap<>();
        for (String strategy : List.of("sequential", "concurrent", "batch")) {
            List<JsonNode> pages = new ArrayList<>();
            String token = null;
            do {
                ObjectNode params = Json.object().put("max_results", 25).put("strategy", strategy);
                if (token != null) {
                    params.put("page_token", token);
                }
                JsonNode page = call(tools, GmailTools.LIST, params);
                pages.add(page);
                token = page.path("next_page_token").asText(null);
            } while (token != null);
            pagesByStrategy.put(strategy, pages);
        }
        List<JsonNode> reference = pagesByStrategy.get("sequential");
        pagesByStrategy.forEach((strategy, pages) -> assertThat(pages).as("%s lists as sequential does", strategy)
                .isEqualTo(reference));
        for (JsonNode page : reference) {
            for (JsonNode email : page.path("emails")) {
                String id = email.path("id").asText();
                String name = fileById.get(id);
                if (name != null && !hasError(page, id)) {
                    ((ObjectNode) out.get(name)).put("listed", true);
                }
            }
        }
    }

    /** Records whether the search finds the message (and names it in no error). */
    private static void search(ToolRegistry tools, String id, String query, ObjectNode entry, String field, String errorField) {
        entry.put(field + "_query", query);
        try {
            JsonNode found = call(tools, GmailTools.SEARCH, Json.object().put("query", query).put("max_results", 500));
            entry.put(field, ids(found).contains(id) && !hasError(found, id));
        } catch (ToolException failure) {
            entry.put(errorField, failure.getMessage());
        }
    }

    private static JsonNode call(ToolRegistry tools, String tool, ObjectNode params) {
        ToolResult r = tools.call(ToolCall.of(tool, params));
        return r.data();
    }

    private static List<String> ids(JsonNode list) {
        List<String> ids = new ArrayList<>();
        list.path("emails").forEach(e -> ids.add(e.path("id").asText()));
        return ids;
    }

    private static boolean hasError(JsonNode answer, String id) {
        for (JsonNode error : answer.path("errors")) {
            if (error.path("id").asText().equals(id)) {
                return true;
            }
        }
        return false;
    }

    /** Message id to file name, from the marker header each served copy carries (asked of the API, not the tools). */
    private static Map<String, String> fileNamesById(Emulator emulator) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String base = emulator.rootUri().resolve("gmail/v1/users/me/").toString();
        Map<String, String> byId = new HashMap<>();
        String page = null;
        do {
            JsonNode list = getJson(http, base + "messages?maxResults=500" + (page == null ? "" : "&pageToken=" + page));
            for (JsonNode m : list.path("messages")) {
                String id = m.path("id").asText();
                JsonNode meta = getJson(http, base + "messages/" + id + "?format=metadata&metadataHeaders=" + MARKER);
                for (JsonNode h : meta.path("payload").path("headers")) {
                    if (h.path("name").asText().equalsIgnoreCase(MARKER)) {
                        byId.put(id, h.path("value").asText());
                    }
                }
            }
            page = list.path("nextPageToken").asText(null);
        } while (page != null);
        return byId;
    }

    private static JsonNode getJson(HttpClient http, String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer t").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
        return Json.MAPPER.readTree(r.body());
    }

    /** Copies each .eml as it is (for Python) and with a marker header first (for the emulator, to map ids back). */
    private static void copyCorpus(Path from, String prefix, Path originals, Path served) throws IOException {
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".eml")).sorted().toList()) {
                String name = prefix + f.getFileName();
                byte[] raw = Files.readAllBytes(f);
                Files.write(originals.resolve(name), raw);
                String text = new String(raw, StandardCharsets.ISO_8859_1);
                String newline = text.contains("\r\n") ? "\r\n" : "\n";
                byte[] marker = (MARKER + ": " + name + newline).getBytes(StandardCharsets.US_ASCII);
                // first, unless the file starts with a stray continuation line, which would then continue the marker
                int at = raw.length > 0 && (raw[0] == ' ' || raw[0] == '\t') ? text.indexOf('\n') + 1 : 0;
                byte[] copy = new byte[marker.length + raw.length];
                System.arraycopy(raw, 0, copy, 0, at);
                System.arraycopy(marker, 0, copy, at, marker.length);
                System.arraycopy(raw, at, copy, at + marker.length, raw.length - at);
                Files.write(served.resolve(name), copy);
            }
        }
    }

    private static int countEml(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return (int) files.filter(p -> p.toString().endsWith(".eml")).count();
        }
    }

    private static void reset(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
    }

    private static int python(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("python3", "src/test/python/mail_reference.py"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("python finished").isTrue();
        System.out.print(output);
        if (p.exitValue() > 1) {
            throw new AssertionError("mail_reference.py " + args[0] + " crashed:\n" + output);
        }
        return p.exitValue();
    }
}
