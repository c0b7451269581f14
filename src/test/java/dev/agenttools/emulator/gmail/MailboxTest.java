package dev.agenttools.emulator.gmail;

import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.emulator.JavaGmailClient;
import dev.agenttools.emulator.RawHttp;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The seeded mailbox's content and reproducibility, and the same API over the user's own mbox or .eml files. */
class MailboxTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static final Instant ANCHOR = Instant.parse("2026-11-30T00:00:00Z");

    @Test
    void seededMailboxIsReproducibleAndHoldsEveryShape() {
        List<MailInput> a = SeedMailbox.generate(42, 1_200, ANCHOR, "me@example.com");
        assertThat(a).hasSize(1_200);
        // the same seed gives the same bytes (checked on a smaller mailbox: generating is the suite's costliest step)
        List<MailInput> small = SeedMailbox.generate(42, 150, ANCHOR, "me@example.com");
        List<MailInput> again = SeedMailbox.generate(42, 150, ANCHOR, "me@example.com");
        for (int i = 0; i < small.size(); i++) {
            assertThat(small.get(i).raw()).isEqualTo(again.get(i).raw());
            assertThat(small.get(i).labelIds()).containsExactlyElementsOf(again.get(i).labelIds());
        }
        Mailbox box = Mailbox.load("me@example.com", a);
        List<StoredMessage> all = box.messages(m -> true);
        Set<String> types = all.stream().flatMap(m -> {
            List<String> t = new ArrayList<>();
            m.parsed.root().forEach(p -> t.add(p.mimeType()));
            return t.stream();
        }).collect(Collectors.toSet());
        assertThat(types).contains("text/plain", "text/html", "multipart/alternative", "multipart/mixed",
                "multipart/related", "image/png", "application/pdf", "text/csv", "text/calendar");
        String raws = all.stream().map(m -> new String(m.raw, StandardCharsets.ISO_8859_1)).collect(Collectors.joining("\n"));
        assertThat(raws).contains("charset=ISO-2022-JP", "=?ISO-2022-JP?B?", "=?UTF-8?", "quoted-printable",
                "Content-Transfer-Encoding: base64", "In-Reply-To:");
        // replies name the message they answer, as mail clients write it (not the string "null")
        assertThat(raws).doesNotContain("In-Reply-To: null", "References: null").containsPattern(
                "In-Reply-To: <seed\\.\\d+\\.[0-9a-f]+@mail\\.example>");
        Set<String> messageIds = all.stream().map(m -> headerOf(m, "Message-ID")).collect(Collectors.toSet());
        assertThat(all.stream().map(m -> headerOf(m, "In-Reply-To")).filter(Objects::nonNull))
                .isNotEmpty().allSatisfy(id -> assertThat(messageIds).contains(id));
        long span = all.getFirst().internalDate - all.getLast().internalDate;
        assertThat(span).isGreaterThan(Duration.ofDays(600).toMillis());
        assertThat(box.threadCount()).isLessThan(all.size());
        assertThat(all.stream().mapToInt(m -> box.thread(m.threadId).size()).max().orElseThrow()).isGreaterThanOrEqualTo(25);
        assertThat(box.labels()).extracting(Label::name).contains("Work", "Travel", "Receipts", "Clients/Japan", "Projects/agent-tools");
        assertThat(all).anyMatch(m -> m.parsed.subject().isEmpty());
        assertThat(all).anyMatch(m -> m.raw.length > 1_000_000 && m.parsed.root().mimeType().equals("text/html"));
    }

    private static String headerOf(StoredMessage m, String name) {
        return m.parsed.root().headers().stream().filter(h -> h.name().equalsIgnoreCase(name)).map(MessagePart.Header::value)
                .findFirst().orElse(null);
    }

    @Test
    void aMemoizedSeedServesTheSameMailboxAndEachEmulatorKeepsItsOwnChanges() throws Exception {
        EmulatorConfig config = JavaGmailClient.fastConfig().seedMessages(300).build();
        try (Emulator fresh = Emulator.start(config); Emulator first = emulators.start(config); Emulator second = emulators.start(config)) {
            List<StoredMessage> expected = Emulators.mailbox(fresh).messages(m -> true);
            for (Emulator memoized : List.of(first, second)) {
                List<StoredMessage> actual = Emulators.mailbox(memoized).messages(m -> true);
                assertThat(actual).hasSameSizeAs(expected);
                for (int i = 0; i < expected.size(); i++) {
                    assertThat(actual.get(i).id).isEqualTo(expected.get(i).id);
                    assertThat(actual.get(i).threadId).isEqualTo(expected.get(i).threadId);
                    assertThat(actual.get(i).labels()).isEqualTo(expected.get(i).labels());
                    assertThat(actual.get(i).raw).isEqualTo(expected.get(i).raw);
                    // field by field, arrays by content: AssertJ's recursive comparison took 46-90 s of CPU for 300 messages
                    assertSameParse(actual.get(i).parsed, expected.get(i).parsed);
                }
            }
            String id = Long.toHexString(expected.getFirst().id);
            RawHttp http = new RawHttp(first, HttpClient.Version.HTTP_1_1);
            assertThat(http.post("gmail/v1/users/me/messages/" + id + "/trash", "application/json", "").statusCode()).isEqualTo(200);
            assertThat(Emulators.mailbox(first).messages(m -> true).getFirst().labels()).contains("TRASH");
            assertThat(Emulators.mailbox(second).messages(m -> true).getFirst().labels()).doesNotContain("TRASH");
        }
    }

    @Test
    void servesAnMboxFromGoogleTakeoutWithItsLabelsAndThreads(@TempDir Path dir) throws Exception {
        Path mbox = dir.resolve("All mail Including Spam and Trash.mbox");
        Files.writeString(mbox, """
                From 1790000000000000001@xxx Mon Jan 05 10:00:00 +0000 2026
                X-GM-THRID: 1790000000000000001
                X-Gmail-Labels: Inbox,Unread,Important,"Work, 2026",Category Updates
                From: Ana <ana@example.org>
                To: me@example.com
                Subject: Plan for Q1
                Message-ID: <q1@example.org>
                Date: Mon, 05 Jan 2026 10:00:00 +0000
                Content-Type: text/plain; charset=UTF-8

                Here is the plan.
                >From the top: step one.

                From 1790000000000000002@xxx Tue Jan 06 09:00:00 +0000 2026
                X-GM-THRID: 1790000000000000001
                X-Gmail-Labels: Sent,Opened
                From: me@example.com
                To: Ana <ana@example.org>
                Subject: Re: Plan for Q1
                Message-ID: <q1-reply@example.com>
                In-Reply-To: <q1@example.org>
                Date: Tue, 06 Jan 2026 09:00:00 +0000
                Content-Type: text/plain; charset=UTF-8

                Looks good.
                """.replace("\n", "\r\n"), StandardCharsets.UTF_8);
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().mailbox(mbox.toString()).build())) {
            Gmail gmail = JavaGmailClient.connect(emulator, "t");
            List<Message> listed = gmail.users().messages().list("me").execute().getMessages();
            assertThat(listed).hasSize(2);
            assertThat(listed.get(0).getThreadId()).isEqualTo(listed.get(1).getThreadId());
            Message plan = gmail.users().messages().get("me", listed.get(1).getId()).execute();
            assertThat(plan.getLabelIds()).contains("INBOX", "UNREAD", "IMPORTANT", "CATEGORY_UPDATES");
            assertThat(plan.getLabelIds()).anyMatch(l -> l.startsWith("Label_"));
            assertThat(new String(plan.getPayload().getBody().decodeData(), StandardCharsets.UTF_8))
                    .contains("From the top").doesNotContain(">From");
            assertThat(gmail.users().messages().list("me").setQ("label:work,-2026").execute().getResultSizeEstimate()).isEqualTo(1);
            assertThat(gmail.users().messages().list("me").setQ("in:sent").execute().getMessages()).hasSize(1);
            assertThat(gmail.users().labels().list("me").execute().getLabels()).anyMatch(l -> l.getName().equals("Work, 2026"));
        }
    }

    @Test
    void servesAFolderOfEmlFilesThreadedByReferences(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("1.eml"), "From: a@example.org\r\nTo: me@example.com\r\nSubject: Hello\r\n"
                + "Message-ID: <one@example.org>\r\nDate: Mon, 05 Jan 2026 10:00:00 +0000\r\n\r\nFirst.\r\n");
        Files.writeString(dir.resolve("2.eml"), "From: b@example.org\r\nTo: me@example.com\r\nSubject: Re: Hello\r\n"
                + "Message-ID: <two@example.org>\r\nIn-Reply-To: <one@example.org>\r\nDate: Mon, 05 Jan 2026 11:00:00 +0000\r\n\r\nSecond.\r\n");
        Files.writeString(dir.resolve("notes.txt"), "not mail");
        try (Emulator emulator = emulators.start(JavaGmailClient.fastConfig().mailbox(dir.toString()).build())) {
            Gmail gmail = JavaGmailClient.connect(emulator, "t");
            List<Message> listed = gmail.users().messages().list("me").execute().getMessages();
            assertThat(listed).hasSize(2);
            assertThat(listed.get(0).getThreadId()).isEqualTo(listed.get(1).getThreadId());
            assertThat(gmail.users().messages().get("me", listed.get(0).getId()).execute().getSnippet()).isEqualTo("Second.");
            assertThat(gmail.users().threads().list("me").execute().getThreads()).hasSize(1);
        }
    }

    @Test
    void aMissingMailboxPathIsAClearError() {
        Assertions.assertThatThrownBy(() -> emulators.start(JavaGmailClient.fastConfig().mailbox("/no/such/file.mbox").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/no/such/file.mbox").hasMessageContaining("mbox");
    }

    private static void assertSameParse(ParsedMessage actual, ParsedMessage expected) {
        assertThat(withoutRoot(actual)).isEqualTo(withoutRoot(expected));
        assertSamePart(actual.root(), expected.root());
    }

    private static ParsedMessage withoutRoot(ParsedMessage m) {
        return new ParsedMessage(null, m.subject(), m.from(), m.to(), m.cc(), m.bcc(), m.deliveredTo(), m.listId(),
                m.rfc822MessageId(), m.inReplyTo(), m.references(), m.bodyText(), m.snippet(), m.attachmentNames(), m.searchText());
    }

    private static void assertSamePart(MessagePart actual, MessagePart expected) {
        assertThat(List.of(actual.partId(), actual.mimeType(), String.valueOf(actual.filename()), actual.attachment()))
                .isEqualTo(List.of(expected.partId(), expected.mimeType(), String.valueOf(expected.filename()), expected.attachment()));
        assertThat(actual.headers()).isEqualTo(expected.headers());
        assertThat(actual.data()).as("part %s's bytes", expected.partId()).isEqualTo(expected.data());
        assertThat(actual.parts()).hasSameSizeAs(expected.parts());
        for (int i = 0; i < expected.parts().size(); i++) {
            assertSamePart(actual.parts().get(i), expected.parts().get(i));
        }
    }
}
