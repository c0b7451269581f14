package dev.agenttools.mailindex;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.gmail.GmailTools;
import dev.agenttools.store.ForeignFiles;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local mail index: a list asked again answers exactly what a list without it answers, for the same mailbox,
 * in one round trip (messages.list and history.list) when nothing new arrived, through label changes, trash and
 * a history too old for Gmail.
 */
class MailIndexTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    /** An emulator that answers at once and never limits (as GmailToolsTest's): functional tests, not pacing tests. */
    private static EmulatorConfig.Builder fastEmulator() {
        return EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO).handshake(Duration.ZERO)
                .quotaPerMinute(60_000_000).maxConcurrent(1_000);
    }

    private static GmailSettings fastSettings(Emulator emulator) {
        return GmailSettings.forRoot(emulator.rootUri().toString()).withPacing(60_000_000, 1_000_000, 50);
    }

    private static ObjectNode obj(String json) {
        try {
            return (ObjectNode) Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static ToolRegistry tools(Emulator emulator, CacheSettings cache) {
        return Tools.builder().gmail(fastSettings(emulator)).defaultAccessToken("t").cache(cache).build();
    }

    private static JsonNode list(ToolRegistry tools, String params) {
        return tools.call(ToolCall.of(GmailTools.LIST, obj(params))).data();
    }

    private static void post(Emulator emulator, String path, String body) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(emulator.rootUri() + path))
                    .header("Authorization", "Bearer t").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
    }

    @Test
    void aListAskedAgainIsOneRoundTripAndTheSameAnswerThroughChanges(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("index").resolve("mail-index.db");
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            ToolRegistry plain = tools(emulator, CacheSettings.OFF);
            String params = "{\"max_results\": 10, \"strategy\": \"concurrent\"}";

            JsonNode first = list(indexed, params);
            assertThat(first).isEqualTo(list(plain, params));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");

            long before = emulator.counters().apiCalls();
            ToolResult warm = indexed.call(ToolCall.of(GmailTools.LIST, obj(params)));
            assertThat(emulator.counters().apiCalls() - before).as("messages.list and history.list, nothing fetched").isEqualTo(2);
            assertThat(warm.backend().wireName()).isEqualTo("index");
            assertThat(warm.data()).isEqualTo(first);

            // labels change, one is trashed: the index follows the history and answers as Gmail would now
            String a = first.get("emails").get(0).get("id").asText();
            String b = first.get("emails").get(1).get("id").asText();
            post(emulator, "gmail/v1/users/me/messages/" + a + "/modify", "{\"addLabelIds\": [\"STARRED\"], \"removeLabelIds\": [\"UNREAD\"]}");
            post(emulator, "gmail/v1/users/me/messages/" + b + "/trash", "");
            JsonNode changed = list(indexed, params);
            assertThat(changed).isEqualTo(list(plain, params));
            assertThat(changed.get("emails").get(0).get("label_ids").toString()).contains("STARRED");
            assertThat(changed.get("emails").findValuesAsText("id")).doesNotContain(b).hasSize(10);

            // new mail: the list, the history, then only the new messages fetched
            for (int i = 0; i < 2; i++) {
                String raw = Base64.getUrlEncoder().encodeToString(("From: Amy <amy@example.org>\r\nTo: me@example.com\r\n"
                        + "Subject: New " + i + "\r\nDate: Tue, 01 Dec 2026 09:00:0" + i + " +0000\r\n\r\nHello " + i + "\r\n")
                        .getBytes(StandardCharsets.UTF_8));
                post(emulator, "gmail/v1/users/me/messages", "{\"raw\": \"" + raw + "\", \"labelIds\": [\"INBOX\", \"UNREAD\"]}");
            }
            before = emulator.counters().apiCalls();
            ToolResult fresh = indexed.call(ToolCall.of(GmailTools.LIST, obj(params)));
            assertThat(emulator.counters().apiCalls() - before).as("list, history and the 2 new messages").isEqualTo(4);
            assertThat(fresh.backend().wireName()).isEqualTo("concurrent");
            assertThat(fresh.data()).isEqualTo(list(plain, params));
            assertThat(fresh.data().get("emails").findValuesAsText("subject")).contains("New 0", "New 1");

            // search goes through the index too, and so does a label list of other mail
            String search = "{\"query\": \"in:inbox\", \"max_results\": 5}";
            assertThat(indexed.call(ToolCall.of(GmailTools.SEARCH, obj(search))).data())
                    .isEqualTo(plain.call(ToolCall.of(GmailTools.SEARCH, obj(search))).data());
            String sent = "{\"label\": \"SENT\", \"max_results\": 5}";
            assertThat(list(indexed, sent)).isEqualTo(list(plain, sent));
        }
    }

    @Test
    void aHistoryTooOldOrARefreshRebuildsAndAnOffCallLeavesTheIndexAlone(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("mail-index.db");
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            ToolRegistry plain = tools(emulator, CacheSettings.OFF);
            String params = "{\"max_results\": 5}";
            list(indexed, params);
            String account = emulator.rootUri() + "|me@example.com";
            try (MailIndex index = MailIndex.open(file, 20_000)) {
                assertThat(index.counts()).containsEntry(account, 5L);
                index.reset(account, BigInteger.ONE); // as if synced long ago: Gmail has no history that old
            }
            String stderr = stderrOf(() -> assertThat(list(indexed, params)).isEqualTo(list(plain, params)));
            assertThat(stderr).as("the 404 every index meets after a week away is not worth a line").isEmpty();
            try (MailIndex index = MailIndex.open(file, 20_000)) {
                assertThat(index.historyId(account)).hasValueSatisfying(h -> assertThat(h).isGreaterThan(BigInteger.ONE));
            }
            long before = emulator.counters().apiCalls();
            list(indexed, "{\"max_results\": 5, \"cache\": \"refresh\"}");
            assertThat(emulator.counters().apiCalls() - before).as("list, profile and 5 gets").isEqualTo(7);
            before = emulator.counters().apiCalls();
            list(indexed, "{\"max_results\": 5, \"cache\": \"off\"}");
            assertThat(emulator.counters().apiCalls() - before).as("list and 5 gets, no index").isEqualTo(6);
        }
    }

    @Test
    void twoIndexUsersAndAMailboxChangingUnderThemEndAsGmailIs(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("mail-index.db");
            // two registries on one file: two connections, as two processes would have
            ToolRegistry one = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            ToolRegistry two = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            ToolRegistry plain = tools(emulator, CacheSettings.OFF);
            String params = "{\"max_results\": 15}";
            List<String> ids = new ArrayList<>();
            list(plain, "{\"max_results\": 40}").get("emails").forEach(e -> ids.add(e.get("id").asText()));
            AtomicBoolean stop = new AtomicBoolean();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (ToolRegistry r : List.of(one, two)) {
                    pool.submit(() -> {
                        while (!stop.get()) {
                            try {
                                JsonNode data = list(r, params);
                                assertThat(data.has("errors")).as(data.toString()).isFalse();
                            } catch (Throwable t) {
                                failures.add(t);
                            }
                        }
                    });
                }
                Random random = new Random(7);
                for (int i = 0; i < 60; i++) {
                    String id = ids.get(random.nextInt(ids.size()));
                    switch (random.nextInt(4)) {
                        case 0 -> post(emulator, "gmail/v1/users/me/messages/" + id + "/modify", "{\"addLabelIds\": [\"STARRED\"]}");
                        case 1 -> post(emulator, "gmail/v1/users/me/messages/" + id + "/modify", "{\"removeLabelIds\": [\"UNREAD\", \"STARRED\"]}");
                        case 2 -> post(emulator, "gmail/v1/users/me/messages/" + id + "/trash", "");
                        default -> post(emulator, "gmail/v1/users/me/messages", "{\"raw\": \"" + Base64.getUrlEncoder()
                                .encodeToString(("Subject: Burst " + i + "\r\nFrom: a@example.org\r\n\r\nx\r\n").getBytes())
                                + "\", \"labelIds\": [\"INBOX\"]}");
                    }
                    Thread.sleep(5);
                }
                stop.set(true);
            }
            assertThat(failures).isEmpty();
            // once the mailbox is still, both answer exactly what Gmail's state gives
            JsonNode truth = list(plain, params);
            assertThat(list(one, params)).isEqualTo(truth);
            assertThat(list(two, params)).isEqualTo(truth);
        }
    }

    @Test
    void messagesVanishingBetweenListAndGetAreSkippedAndForgotten(@TempDir Path dir) throws Exception {
        // the fault model deletes a third of the listed messages before the client can fetch them, as mail deleted
        // elsewhere at that moment: the index fetches only what it lacks, skips what vanished, and forgets what history
        // says was deleted
        try (Emulator emulator = emulators.start(fastEmulator().vanishRate(0.3).build())) {
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, dir.resolve("mail-index.db"), 20_000));
            for (int round = 0; round < 6; round++) {
                JsonNode data = list(indexed, "{\"max_results\": 15}");
                assertThat(data.has("errors")).as(data.toString()).isFalse();
                assertThat(data.get("emails").size() + data.get("skipped").asInt()).as("listed = answered + skipped").isEqualTo(15);
                data.get("emails").forEach(e -> assertThat(e.get("subject").isTextual()).isTrue());
            }
            assertThat(emulator.counters().messagesVanished()).isPositive();
        }
    }

    @Test
    void aDamagedIndexIsSetAsideAndRebuilt(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("mail-index.db");
            Files.writeString(file, "not a database, whatever wrote it".repeat(200));
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            String params = "{\"max_results\": 4}";
            assertThat(list(indexed, params)).isEqualTo(list(tools(emulator, CacheSettings.OFF), params));
            try (var aside = Files.list(dir)) {
                assertThat(aside.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("mail-index.db.damaged-"));
            }
            assertThat(indexed.call(ToolCall.of(GmailTools.LIST, obj(params))).backend().wireName()).as("the new index answers").isEqualTo("index");
        }
    }

    /** What the code under {@code run} printed on stderr. */
    private static String stderrOf(ThrowingRunnable run) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aPageDamagedInTheMiddleOfTheFileIsSetAsideOnceAndTheListsAnswerAsGmail(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("mail-index.db");
            CacheSettings cache = new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000);
            ToolRegistry plain = tools(emulator, CacheSettings.OFF);
            String params = "{\"max_results\": 60}";
            JsonNode truth = list(plain, params);
            assertThat(list(tools(emulator, cache), params)).isEqualTo(truth);

            // garbage over one page of the messages table in the middle of the file; the header (page 1) stays valid
            long page;
            int pageSize;
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement s = c.createStatement()) {
                List<Long> leaves = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno")) {
                    while (rs.next()) {
                        leaves.add(rs.getLong(1));
                    }
                }
                assertThat(leaves).as("the messages fill several pages").hasSizeGreaterThan(2);
                page = leaves.get(leaves.size() / 2);
                try (ResultSet rs = s.executeQuery("PRAGMA page_size")) {
                    pageSize = rs.getInt(1);
                }
            }
            byte[] garbage = new byte[pageSize];
            new Random(25).nextBytes(garbage);
            try (var channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(garbage), (page - 1) * pageSize);
            }

            // a new process's tools (a connection with nothing cached) meet the damage while listing
            ToolRegistry next = tools(emulator, cache);
            List<ToolResult> answers = new ArrayList<>();
            String stderr = stderrOf(() -> {
                for (int i = 0; i < 3; i++) {
                    answers.add(next.call(ToolCall.of(GmailTools.LIST, obj(params))));
                }
            });
            assertThat(answers).allSatisfy(a -> assertThat(a.data()).isEqualTo(truth));
            assertThat(stderr.lines().filter(l -> l.contains("is damaged"))).as(stderr).singleElement()
                    .satisfies(l -> assertThat(l).contains("the mail index " + file, "set aside as " + dir.toRealPath() + "/mail-index.db.damaged-"));
            assertThat(stderr).as("no complaint on every call").doesNotContain("listing without the mail index");
            try (var files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.matches("mail-index\\.db\\.damaged-\\d+"));
            }
            assertThat(answers.getLast().backend().wireName()).as("the new index answers").isEqualTo("index");
            try (MailIndex index = MailIndex.open(file, 20_000)) {
                assertThat(index.counts()).containsEntry(emulator.rootUri() + "|me@example.com", 60L);
            }
        }
    }

    @Test
    void aLinkAtTheIndexPathIsNeverFollowedAndTheListsStillAnswer(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path store = Files.createDirectories(dir.resolve("store"));
            Path file = store.resolve("mail-index.db");
            String params = "{\"max_results\": 4}";
            JsonNode truth = list(tools(emulator, CacheSettings.OFF), params);
            Path theirs = ForeignFiles.theirDatabase(dir);
            for (Path target : List.of(ForeignFiles.plainFile(dir), theirs)) {
                byte[] before = Files.readAllBytes(target);
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(target));
                Files.createSymbolicLink(file, target);
                ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
                String stderr = stderrOf(() -> {
                    assertThat(list(indexed, params)).isEqualTo(truth);
                    assertThat(list(indexed, params)).isEqualTo(truth);
                });
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).as("%s's mode", target).isEqualTo(mode);
                assertThat(Files.readAllBytes(target)).as("%s unchanged", target).isEqualTo(before);
                assertThat(stderr.lines()).as("said once, naming the link").singleElement()
                        .satisfies(l -> assertThat(l).contains(file + " is a symbolic link"));
                assertThat(Files.isSymbolicLink(file)).as("the link is left where it is").isTrue();
                Files.delete(file);
            }
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + theirs);
                 ResultSet rs = c.createStatement().executeQuery("SELECT group_concat(name) FROM sqlite_master")) {
                assertThat(rs.getString(1)).as("no table of ours in their database").isEqualTo("their_table");
            }
            try (var left = Files.list(dir.resolve("elsewhere"))) {
                assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("notes.txt", "theirs.db");
            }

            // a link where SQLite keeps its journal is refused in the same way
            Path notes = dir.resolve("elsewhere/notes.txt");
            Files.createSymbolicLink(store.resolve("mail-index.db-journal"), notes);
            assertThat(list(tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000)), params)).isEqualTo(truth);
            assertThat(notes).hasContent("precious notes");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(notes))).isEqualTo("rw-r--r--");
            Files.delete(store.resolve("mail-index.db-journal"));
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            list(indexed, params);
            assertThat(indexed.call(ToolCall.of(GmailTools.LIST, obj(params))).backend().wireName()).as("once the link is gone").isEqualTo("index");
        }
    }

    @Test
    void anIndexInAFolderOthersMayWriteIsRefusedNamingTheFolder(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path shared = Files.createDirectories(dir.resolve("shared"));
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            String params = "{\"max_results\": 3}";
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, shared.resolve("mail-index.db"), 20_000));
            String stderr = stderrOf(() -> assertThat(list(indexed, params)).isEqualTo(list(tools(emulator, CacheSettings.OFF), params)));
            assertThat(stderr).contains("the folder " + shared.toRealPath() + " has mode rwxrwxrwx", "others may make files in it");
            try (var left = Files.list(shared)) {
                assertThat(left).isEmpty();
            }
        }
    }

    @Test
    void anOlderVersionsWalIndexIsConvertedOnceNoOtherProcessHoldsIt(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("mail-index.db");
            String params = "{\"max_results\": 3}";
            JsonNode truth = list(tools(emulator, CacheSettings.OFF), params);
            try (Connection older = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement s = older.createStatement()) {
                s.execute("PRAGMA journal_mode = WAL"); // as versions before this one kept it, still open in their process
                s.execute("CREATE TABLE accounts (account TEXT PRIMARY KEY, history_id TEXT NOT NULL, synced_ms INTEGER NOT NULL)");
                ToolRegistry meanwhile = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
                String stderr = stderrOf(() -> assertThat(list(meanwhile, params)).isEqualTo(truth));
                assertThat(stderr).contains("the mail index " + file + " is not used", "is in WAL mode", "open in another process");
            }
            ToolRegistry after = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            assertThat(list(after, params)).isEqualTo(truth);
            assertThat(after.call(ToolCall.of(GmailTools.LIST, obj(params))).backend().wireName()).isEqualTo("index");
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                 ResultSet rs = c.createStatement().executeQuery("PRAGMA journal_mode")) {
                assertThat(rs.getString(1)).isNotEqualTo("wal");
            }
            assertThat(dir.resolve("mail-index.db-shm")).doesNotExist();
        }
    }

    @Test
    void anIndexThatFailsOtherwiseIsLeftAloneForAMinuteWithOneLineOnStderr(@TempDir Path dir) throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build())) {
            Path file = dir.resolve("mail-index.db");
            String params = "{\"max_results\": 3}";
            JsonNode truth = list(tools(emulator, CacheSettings.OFF), params);
            ToolRegistry indexed = tools(emulator, new CacheSettings(CacheSettings.Mode.AUTO, file, 20_000));
            assertThat(list(indexed, params)).isEqualTo(truth);
            // another process holds the file locked past the busy timeout (as a read-only or full disk would fail too)
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement s = other.createStatement()) {
                s.execute("BEGIN EXCLUSIVE");
                String stderr = stderrOf(() -> {
                    for (int i = 0; i < 3; i++) {
                        assertThat(list(indexed, params)).isEqualTo(truth);
                    }
                });
                assertThat(stderr.lines()).as(stderr).singleElement()
                        .satisfies(l -> assertThat(l).startsWith("agent-tools: listing without the mail index for 60 s:"));
                s.execute("ROLLBACK");
            }
        }
    }

    @Test
    void eachServerIsItsOwnAccountAndTheSizeIsBounded(@TempDir Path dir) throws Exception {
        try (Emulator one = emulators.start(fastEmulator().seed(1).build()); Emulator two = emulators.start(fastEmulator().seed(2).build())) {
            Path file = dir.resolve("mail-index.db");
            CacheSettings cache = new CacheSettings(CacheSettings.Mode.AUTO, file, 8);
            String params = "{\"max_results\": 10}";
            assertThat(list(tools(one, cache), params)).isEqualTo(list(tools(one, CacheSettings.OFF), params));
            assertThat(list(tools(two, cache), params)).isEqualTo(list(tools(two, CacheSettings.OFF), params));
            assertThat(list(tools(one, cache), params)).isEqualTo(list(tools(one, CacheSettings.OFF), params));
            try (MailIndex index = MailIndex.open(file, 8)) {
                assertThat(index.counts()).hasSize(2).allSatisfy((account, count) -> assertThat(count).isEqualTo(8L));
            }
            // what `agent-tools cache status|clear` shows and does
            assertThat(MailIndexFiles.status(cache)).hasValueSatisfying(counts -> assertThat(counts.keySet())
                    .containsExactlyInAnyOrder(one.rootUri() + "|me@example.com", two.rootUri() + "|me@example.com"));
            assertThat(MailIndexFiles.clear(cache)).isTrue();
            assertThat(MailIndexFiles.status(cache)).hasValue(Map.of());
            assertThat(MailIndexFiles.status(new CacheSettings(CacheSettings.Mode.AUTO, dir.resolve("none.db"), 8))).isEmpty();
        }
    }
}
