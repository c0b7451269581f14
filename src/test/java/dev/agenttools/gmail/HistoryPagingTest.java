package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.google.HostileServer;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25, item 7: a Gmail whose history.list paging misbehaves (a page token sent again, pages that never end)
 * while the mail index syncs. The history is then not replayed: the index rebuilds from the list's own answer, as
 * for a history too old, so the answer is the one a list without the index gives, within the deadline, after at
 * most {@link GmailService#HISTORY_PAGES} history pages; and the next list syncs as usual.
 */
class HistoryPagingTest {
    private static final String MESSAGES = "gmail/v1/users/me/messages";
    private static final String HISTORY = "gmail/v1/users/me/history";
    private static final int TIMEOUT_MS = 10_000;
    private static final String PARAMS = "{\"max_results\": 2, \"strategy\": \"concurrent\", \"timeout_ms\": " + TIMEOUT_MS + "}";

    /** Two messages whose labels the test changes behind the history's back. */
    private final Map<String, String> labels = new ConcurrentHashMap<>(Map.of("m1", "\"INBOX\", \"UNREAD\"", "m2", "\"INBOX\""));

    private HostileServer gmail() throws IOException {
        HostileServer server = new HostileServer();
        server.route(MESSAGES, q -> "{\"messages\": [{\"id\": \"m1\", \"threadId\": \"t1\"}, {\"id\": \"m2\", \"threadId\": \"t2\"}]}");
        server.route("gmail/v1/users/me/profile", q -> "{\"emailAddress\": \"me@example.com\", \"historyId\": \"100\"}");
        for (String id : List.of("m1", "m2")) {
            server.route(MESSAGES + "/" + id, q -> "{\"id\": \"" + id + "\", \"threadId\": \"t" + id.substring(1) + "\", \"labelIds\": ["
                    + labels.get(id) + "], \"snippet\": \"hello\", \"internalDate\": \"1764579600000\", \"payload\": {\"mimeType\": "
                    + "\"text/plain\", \"filename\": \"\", \"headers\": [{\"name\": \"From\", \"value\": \"Amy <amy@example.org>\"}, "
                    + "{\"name\": \"To\", \"value\": \"me@example.com\"}, {\"name\": \"Subject\", \"value\": \"Hi " + id + "\"}, "
                    + "{\"name\": \"Date\", \"value\": \"Tue, 01 Dec 2026 09:00:00 +0000\"}]}}");
        }
        return server;
    }

    private static ToolRegistry tools(HostileServer server, CacheSettings cache) {
        return Tools.builder().gmail(GmailSettings.forRoot(server.rootUrl()).withPacing(60_000_000, 1_000_000, 50)).defaultAccessToken("t")
                .cache(cache).build();
    }

    private static ToolResult timedList(ToolRegistry tools) {
        long start = System.nanoTime();
        ToolResult r = tools.call(ToolCall.of(GmailTools.LIST, obj(PARAMS)));
        assertThat((System.nanoTime() - start) / 1_000_000).as("answered before the deadline").isLessThan(TIMEOUT_MS);
        return r;
    }

    @Test
    void aHistoryWhosePagesDoNotEndRebuildsTheIndexFromTheListAndTheNextListSyncs(@TempDir Path dir) throws Exception {
        try (HostileServer server = gmail()) {
            ToolRegistry indexed = tools(server, new CacheSettings(CacheSettings.Mode.AUTO, dir.resolve("mail-index.db"), 20_000));
            ToolRegistry plain = tools(server, CacheSettings.OFF);
            JsonNode first = timedList(indexed).data();
            assertThat(first).isEqualTo(plain.call(ToolCall.of(GmailTools.LIST, obj(PARAMS))).data());

            // a page token sent again, and then pages that never end; the labels change where only a fetch sees it
            AtomicInteger page = new AtomicInteger();
            List<Map.Entry<String, String>> hostile = List.of(Map.entry("the same page token again", "\"same\""),
                    Map.entry("more pages after 10", ""));
            for (Map.Entry<String, String> c : hostile) {
                server.route(HISTORY, q -> "{\"history\": [], \"historyId\": \"101\", \"nextPageToken\": "
                        + (c.getValue().isEmpty() ? "\"h" + page.incrementAndGet() + "\"" : c.getValue()) + "}");
                labels.put("m1", "\"INBOX\", \"STARRED\"");
                int before = server.calls(HISTORY);
                ToolResult rebuilt = timedList(indexed);
                assertThat(rebuilt.data()).as(c.getKey()).isEqualTo(plain.call(ToolCall.of(GmailTools.LIST, obj(PARAMS))).data());
                assertThat(rebuilt.data().get("emails").get(0).get("label_ids").toString()).as(c.getKey()).contains("STARRED");
                assertThat(rebuilt.backend().wireName()).as("fetched anew, not answered from the index").isEqualTo("concurrent");
                assertThat(server.calls(HISTORY) - before).as(c.getKey())
                        .isEqualTo(c.getValue().isEmpty() ? GmailService.HISTORY_PAGES : 2);
                labels.put("m1", "\"INBOX\", \"UNREAD\"");
            }

            // the server behaves again: one history page, nothing fetched
            server.route(HISTORY, q -> "{\"history\": [{\"id\": \"102\", \"labelsRemoved\": [{\"message\": {\"id\": \"m1\", "
                    + "\"threadId\": \"t1\", \"labelIds\": [\"INBOX\", \"UNREAD\"]}, \"labelIds\": [\"STARRED\"]}]}], \"historyId\": \"102\"}");
            int before = server.calls(HISTORY);
            ToolResult synced = timedList(indexed);
            assertThat(server.calls(HISTORY) - before).isEqualTo(1);
            assertThat(synced.backend().wireName()).isEqualTo("index");
            assertThat(synced.data()).isEqualTo(first);
        }
    }
}
