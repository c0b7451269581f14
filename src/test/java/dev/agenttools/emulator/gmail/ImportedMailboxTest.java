package dev.agenttools.emulator.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.MessagePart;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.emulator.JavaGmailClient;
import dev.agenttools.emulator.RawHttp;
import dev.agenttools.emulator.api.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Mail as users really have it, loaded with {@code --mailbox}: dated before 1970 or after 2248, nested thousands of
 * multiparts deep, or unreadable. Every readable message is listed and fetched under a Gmail-shaped id; an
 * unreadable one is skipped with one line naming it.
 */
class ImportedMailboxTest {
    private static final String FIXTURES = "/dev/agenttools/emulator/mailbox/";
    private static final List<String> DATED = List.of("1901.eml", "1969.eml", "2002.eml", "2026.eml", "3609.eml");
    private static final String GMAIL_ID = "[1-7][0-9a-f]{15}";

    @Test
    void servesMailOfAnyDateUnderSixteenDigitIdsNewestFirst(@TempDir Path dir) throws Exception {
        for (String name : DATED) {
            copyFixture(name, dir);
        }
        copyFixture("unreadable.eml", dir);
        Files.write(dir.resolve("deep.eml"), deeplyNested(3_000));
        List<String> warnings = new ArrayList<>();
        EmulatorConfig config = JavaGmailClient.fastConfig().mailbox(dir.toString()).build();
        try (Emulator emulator = Emulators.serving(config, load(config, warnings::add))) {
            assertThat(warnings).singleElement().asString()
                    .startsWith("emulator: skipped unreadable.eml: unreadable message: ");
            Gmail gmail = JavaGmailClient.connect(emulator, "t");
            List<Message> listed = gmail.users().messages().list("me").setLabelIds(List.of("INBOX")).execute().getMessages();
            assertThat(listed).hasSize(6);
            assertThat(new HashSet<>(listed.stream().map(Message::getId).toList())).hasSize(6);
            List<String> subjects = new ArrayList<>();
            RawHttp http = new RawHttp(emulator, HttpClient.Version.HTTP_1_1);
            for (Message m : listed) {
                assertThat(m.getId()).matches(GMAIL_ID);
                assertThat(m.getThreadId()).matches(GMAIL_ID);
                Message full = gmail.users().messages().get("me", m.getId()).execute();
                subjects.add(header(full.getPayload(), "Subject"));
                assertThat(http.get("gmail/v1/users/me/threads/" + m.getThreadId()).statusCode()).isEqualTo(200);
            }
            assertThat(subjects).containsExactly("A clock set far ahead", "An ordinary day", "Nested 3000 deep",
                    "Before Gmail existed", "An hour before the epoch", "Telegram from 1901");
            assertThat(listed.stream().map(Message::getId).toList()).isSortedAccordingTo((a, b) -> b.compareTo(a));

            JsonNode oldest = Json.MAPPER.readTree(http.get("gmail/v1/users/me/messages/" + listed.getLast().getId()
                    + "?format=minimal").body());
            assertThat(oldest.get("internalDate").asText()).isEqualTo("-2161782000000");
            JsonNode newest = Json.MAPPER.readTree(http.get("gmail/v1/users/me/messages/" + listed.getFirst().getId()
                    + "?format=minimal").body());
            assertThat(newest.get("internalDate").asText()).isEqualTo("51721923600000");

            assertThat(subjects(gmail, "before:1970/01/01")).containsExactly("An hour before the epoch", "Telegram from 1901");
            assertThat(subjects(gmail, "after:3000/01/01")).containsExactly("A clock set far ahead");
        }
    }

    @Test
    void aMessageNestedThousandsDeepKeepsItsHeadersTopTextAndTheRestAsOnePart(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("deep.eml"), deeplyNested(3_000));
        try (Emulator emulator = Emulator.start(JavaGmailClient.fastConfig().mailbox(dir.toString()).build())) {
            Gmail gmail = JavaGmailClient.connect(emulator, "t");
            String id = gmail.users().messages().list("me").execute().getMessages().getFirst().getId();
            Message full = gmail.users().messages().get("me", id).execute();
            assertThat(full.getSnippet()).isEqualTo("Top text.");
            assertThat(header(full.getPayload(), "Subject")).isEqualTo("Nested 3000 deep");
            MessagePart part = full.getPayload().getParts().get(1);
            int containers = 1;
            while (part.getParts() != null) {
                containers++;
                part = part.getParts().getFirst();
            }
            assertThat(containers).isEqualTo(MimeParser.MAX_DEPTH);
            assertThat(part.getMimeType()).isEqualTo("multipart/mixed");
            assertThat(part.getBody().getAttachmentId()).isNotBlank();
            byte[] rest = gmail.users().messages().attachments().get("me", id, part.getBody().getAttachmentId())
                    .execute().decodeData();
            assertThat(new String(rest, StandardCharsets.US_ASCII)).contains("--level2999", "Bottom text.");
        }
    }

    @Test
    void anMboxWithABrokenMessageInTheMiddleServesTheOthers(@TempDir Path dir) throws Exception {
        byte[] first = ("From a@xxx Mon Jan 05 10:00:00 +0000 2026\r\n" + fixture("2026.eml") + "\r\n")
                .getBytes(StandardCharsets.UTF_8);
        String rest = "From b@xxx Mon Jan 05 09:00:00 +0000 2026\r\n" + fixture("unreadable.eml") + "\r\n"
                + "From c@xxx Wed Dec 31 23:00:00 +0000 1969\r\n" + fixture("1969.eml");
        Path mbox = dir.resolve("mail.mbox");
        Files.write(mbox, first);
        Files.writeString(mbox, rest, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        List<String> warnings = new ArrayList<>();
        EmulatorConfig config = JavaGmailClient.fastConfig().mailbox(mbox.toString()).build();
        try (Emulator emulator = Emulators.serving(config, load(config, warnings::add))) {
            assertThat(warnings).singleElement().asString()
                    .startsWith("emulator: skipped " + mbox + " message 2 at byte " + first.length + ": unreadable message: ");
            assertThat(subjects(JavaGmailClient.connect(emulator, "t"), null))
                    .containsExactly("An ordinary day", "An hour before the epoch");
        }
    }

    @Test
    void aMailboxOfOnlyUnreadableMailIsAClearError(@TempDir Path dir) throws Exception {
        copyFixture("unreadable.eml", dir);
        List<String> warnings = new ArrayList<>();
        EmulatorConfig config = JavaGmailClient.fastConfig().mailbox(dir.toString()).build();
        assertThatThrownBy(() -> load(config, warnings::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(dir.toAbsolutePath().toString()).hasMessageContaining("none of its messages could be read");
        assertThat(warnings).singleElement().asString().startsWith("emulator: skipped unreadable.eml: ");
    }

    @Test
    void idsAreSixteenDigitsUniqueAndInArrivalOrderForAnyDate() {
        long[] dates = {Long.MIN_VALUE, -2_161_782_000_000L, -1, 0, Mailbox.MIN_ID_TIME - 1, Mailbox.MIN_ID_TIME,
                1_767_607_200_000L, 1_767_607_200_000L, Mailbox.MAX_ID_TIME, 51_721_923_600_000L, Long.MAX_VALUE};
        long previous = 0;
        for (int i = 0; i < dates.length; i++) {
            long id = Mailbox.nextId(dates[i], i + 1, previous);
            assertThat(StoredMessage.hex(id)).matches(GMAIL_ID);
            assertThat(id).isGreaterThan(previous);
            previous = id;
        }
        // an ordinary date keeps the id Gmail's shape suggests: the time in ms above a 20-bit counter
        assertThat(Mailbox.nextId(1_767_607_200_000L, 7, 0)).isEqualTo((1_767_607_200_000L << 20) | 7);
        // a further user's ids carry its number above a 12-bit counter, so two users' mail of one ms differs
        assertThat(Mailbox.nextId(1_767_607_200_000L, 7, 0, 3)).isEqualTo((1_767_607_200_000L << 20) | 3 << 12 | 7);
        // more than 2^20 messages at the latest time still get distinct, positive ids
        boolean increasing = true;
        for (int sequence = 1; sequence <= (1 << 21); sequence++) {
            long id = Mailbox.nextId(Long.MAX_VALUE, sequence, previous);
            increasing &= id > previous;
            previous = id;
        }
        assertThat(increasing).isTrue();
        assertThat(StoredMessage.hex(previous)).matches(GMAIL_ID);
    }

    /**
     * A message whose multiparts nest {@code levels} deep, each level with its own boundary: text at the top, then
     * the nested chain, and more text at the bottom.
     */
    static byte[] deeplyNested(int levels) {
        StringBuilder mail = new StringBuilder("""
                From: deep@example.org\r
                To: me@example.com\r
                Subject: Nested %d deep\r
                Date: Tue, 01 Jun 2010 09:00:00 +0000\r
                MIME-Version: 1.0\r
                Content-Type: multipart/mixed; boundary="level0"\r
                \r
                --level0\r
                Content-Type: text/plain\r
                \r
                Top text.\r
                --level0\r
                """.formatted(levels));
        for (int i = 1; i < levels; i++) {
            mail.append("Content-Type: multipart/mixed; boundary=\"level").append(i).append("\"\r\n\r\n--level")
                    .append(i).append("\r\n");
        }
        mail.append("Content-Type: text/plain\r\n\r\nBottom text.\r\n");
        for (int i = levels - 1; i >= 0; i--) {
            mail.append("--level").append(i).append("--\r\n");
        }
        return mail.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static List<String> subjects(Gmail gmail, String q) throws IOException {
        List<Message> listed = gmail.users().messages().list("me").setQ(q).execute().getMessages();
        List<String> subjects = new ArrayList<>();
        for (Message m : listed == null ? List.<Message>of() : listed) {
            subjects.add(header(gmail.users().messages().get("me", m.getId()).setFormat("metadata").execute().getPayload(),
                    "Subject"));
        }
        return subjects;
    }

    private static Mailbox load(EmulatorConfig config, Consumer<String> warnings) {
        return MailboxSource.load(config.mailbox(), config.userEmail(), config.seed(), config.seedMessages(), config.anchor(),
                warnings);
    }

    private static String header(MessagePart payload, String name) {
        return payload.getHeaders().stream().filter(h -> h.getName().equalsIgnoreCase(name)).findFirst().orElseThrow()
                .getValue();
    }

    private static String fixture(String name) throws IOException {
        try (InputStream in = ImportedMailboxTest.class.getResourceAsStream(FIXTURES + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void copyFixture(String name, Path dir) throws IOException {
        Files.writeString(dir.resolve(name), fixture(name), StandardCharsets.UTF_8);
    }
}
