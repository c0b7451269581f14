package dev.agenttools.emulator.gmail;

import com.google.api.client.googleapis.batch.BatchRequest;
import com.google.api.client.googleapis.batch.json.JsonBatchCallback;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.HttpHeaders;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.History;
import com.google.api.services.gmail.model.ListHistoryResponse;
import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.MessagePart;
import com.google.api.services.gmail.model.MessagePartBody;
import com.google.api.services.gmail.model.ModifyMessageRequest;
import com.google.api.services.gmail.model.Profile;
import com.google.api.services.gmail.model.Thread;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.emulator.JavaGmailClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The official Gmail Java client against the emulator, changed only in its root URL and token. */
class JavaClientTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static Gmail gmail;

    @BeforeAll
    static void start() {
        emulator = emulators.start(JavaGmailClient.fastConfig().token("test-token").build());
        gmail = JavaGmailClient.connect(emulator, "test-token");
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    @Test
    void pagesThroughTheWholeMailboxNewestFirstWithoutSpamOrTrash() throws IOException {
        List<Message> all = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            ListMessagesResponse page = gmail.users().messages().list("me").setMaxResults(500L).setPageToken(token).execute();
            all.addAll(page.getMessages());
            token = page.getNextPageToken();
            pages++;
        } while (token != null);
        long spamOrTrash = Emulators.mailbox(emulator).messages(m -> m.labels().contains("SPAM") || m.labels().contains("TRASH")).size();
        assertThat(spamOrTrash).isPositive();
        assertThat(all).hasSize((int) (Emulators.mailbox(emulator).size() - spamOrTrash));
        assertThat(pages).isEqualTo((all.size() + 499) / 500);
        assertThat(all).extracting(Message::getId).doesNotHaveDuplicates().allMatch(id -> id.matches("[0-9a-f]{16}"));
        List<Long> dates = new ArrayList<>();
        for (Message m : all.subList(0, 20)) {
            dates.add(gmail.users().messages().get("me", m.getId()).setFormat("minimal").execute().getInternalDate());
        }
        List<Long> sorted = new ArrayList<>(dates);
        sorted.sort(Collections.reverseOrder());
        assertThat(dates).isEqualTo(sorted);
    }

    @Test
    void emptySearchOmitsTheMessagesField() throws IOException {
        ListMessagesResponse none = gmail.users().messages().list("me").setQ("zzqqxx-no-such-word").execute();
        assertThat(none.getMessages()).isNull();
        assertThat(none.getResultSizeEstimate()).isZero();
        assertThat(none.getNextPageToken()).isNull();
    }

    @Test
    void labelIdsMustAllMatch() throws IOException {
        List<Message> both = gmail.users().messages().list("me").setLabelIds(List.of("INBOX", "UNREAD"))
                .setMaxResults(500L).execute().getMessages();
        assertThat(both).isNotEmpty();
        for (Message m : both.subList(0, Math.min(10, both.size()))) {
            assertThat(gmail.users().messages().get("me", m.getId()).setFormat("minimal").execute().getLabelIds())
                    .contains("INBOX", "UNREAD");
        }
    }

    @Test
    void searchesWithGmailOperators() throws IOException {
        assertThat(count("has:attachment filename:pdf")).isPositive();
        assertThat(count("from:priya.raman@northwind.example")).isPositive();
        assertThat(count("label:work is:unread")).isPositive();
        assertThat(count("larger:1M")).isEqualTo(2); // the 1 MB digest and the 1.5 MB dataset
        assertThat(count("subject:(receipt) -has:attachment")).isZero();
        assertThat(count("{subject:receipt subject:digest}")).isEqualTo(count("subject:receipt") + count("subject:digest"));
        assertThat(count("in:spam")).isPositive();
        assertThat(count("見積書")).isPositive();
        assertThat(count("\"everything that happened\"")).isEqualTo(1);
        assertThat(count("unknownop:whatever")).isZero();
        // unbalanced parentheses are no error: groups with no term in them ask nothing, as a search of nothing does
        assertThat(count("(((")).isEqualTo(count("")).isPositive();
    }

    /** The messages a search finds, counted over its pages: resultSizeEstimate is no count (see below). */
    private int count(String q) throws IOException {
        int n = 0;
        String page = null;
        do {
            ListMessagesResponse r = gmail.users().messages().list("me").setQ(q).setMaxResults(500L).setIncludeSpamTrash(false)
                    .setPageToken(page).execute();
            n += r.getMessages() == null ? 0 : r.getMessages().size();
            page = r.getNextPageToken();
        } while (page != null);
        return n;
    }

    @Test
    void resultSizeEstimateIsCoarseAsGmailsIs() throws IOException {
        // Gmail answered 201 for a 782-message mailbox (a captured response): code that takes it for a count must
        // fail here as it would there
        assertThat(count("in:inbox")).isGreaterThan(201);
        assertThat(gmail.users().messages().list("me").setQ("in:inbox").execute().getResultSizeEstimate()).isEqualTo(201);
        assertThat(gmail.users().threads().list("me").setQ("in:inbox").execute().getResultSizeEstimate()).isEqualTo(201);
        assertThat(gmail.users().messages().list("me").setQ("subject:receipt").execute().getResultSizeEstimate())
                .as("a small result is counted").isEqualTo(count("subject:receipt"));
    }

    @Test
    void longQueriesArriveAsMethodOverrideAndStillWork() throws IOException {
        String q = "subject:receipt " + "-zzz ".repeat(500);
        assertThat(q.length()).isGreaterThan(2048);
        ListMessagesResponse r = gmail.users().messages().list("me").setQ(q).execute();
        assertThat(r.getResultSizeEstimate()).isEqualTo(count("subject:receipt"));
    }

    @Test
    void getsAMessageInEveryFormat() throws IOException {
        String id = firstId("has:attachment filename:pdf");
        Message minimal = gmail.users().messages().get("me", id).setFormat("minimal").execute();
        // as Gmail answers it (captured): a payload of only an empty partId, and no snippet
        assertThat(minimal.getPayload().getPartId()).isEmpty();
        assertThat(minimal.getPayload().getHeaders()).isNull();
        assertThat(minimal.getRaw()).isNull();
        assertThat(minimal.getSnippet()).isNull();
        assertThat(minimal.getHistoryId()).isPositive();

        Message metadata = gmail.users().messages().get("me", id).setFormat("metadata")
                .setMetadataHeaders(List.of("Subject", "From")).execute();
        assertThat(metadata.getPayload().getHeaders()).extracting("name").containsExactlyInAnyOrder("Subject", "From");
        assertThat(metadata.getPayload().getParts()).isNull();
        assertThat(metadata.getPayload().getPartId()).as("metadata's payload: mimeType and headers only").isNull();
        assertThat(metadata.getPayload().getMimeType()).isEqualTo("multipart/mixed");

        Message full = gmail.users().messages().get("me", id).setFormat("full").execute();
        assertThat(full.getPayload().getMimeType()).isEqualTo("multipart/mixed");
        assertThat(full.getPayload().getPartId()).isEmpty();
        MessagePart pdf = full.getPayload().getParts().stream().filter(p -> p.getFilename().endsWith(".pdf")).findFirst().orElseThrow();
        assertThat(pdf.getBody().getAttachmentId()).isNotBlank();
        assertThat(pdf.getBody().getData()).isNull();
        MessagePart plain = full.getPayload().getParts().getFirst().getParts().getFirst();
        assertThat(plain.getPartId()).isEqualTo("0.0");
        assertThat(new String(plain.getBody().decodeData(), StandardCharsets.UTF_8)).contains("Thank you for your purchase");

        MessagePartBody attachment = gmail.users().messages().attachments().get("me", id, pdf.getBody().getAttachmentId()).execute();
        assertThat(attachment.decodeData()).startsWith("%PDF".getBytes(StandardCharsets.US_ASCII));
        assertThat(attachment.getSize()).isEqualTo(pdf.getBody().getSize()).isEqualTo(attachment.decodeData().length);
        assertThat(attachment.getAttachmentId()).as("attachments.get answers size and data only").isNull();

        Message raw = gmail.users().messages().get("me", id).setFormat("raw").execute();
        assertThat(raw.getPayload()).isNull();
        assertThat(new String(raw.decodeRaw(), StandardCharsets.ISO_8859_1)).contains("Content-Type: multipart/mixed");
        assertThat(raw.getSizeEstimate()).isEqualTo(raw.decodeRaw().length);
    }

    @Test
    void servesIso2022JpTextAsUtf8WithTheHeaderKept() throws IOException {
        String id = firstId("モーガン様");
        Message m = gmail.users().messages().get("me", id).execute();
        MessagePart payload = m.getPayload();
        String contentType = payload.getHeaders().stream().filter(h -> h.getName().equals("Content-Type")).findFirst().orElseThrow().getValue();
        String text = new String(payload.getBody().decodeData(), StandardCharsets.UTF_8);
        assertThat(contentType).containsIgnoringCase("iso-2022-jp");
        assertThat(text).contains("モーガン様");
        String subject = payload.getHeaders().stream().filter(h -> h.getName().equals("Subject")).findFirst().orElseThrow().getValue();
        assertThat(subject).doesNotContain("=?").matches(".*[\\p{IsHan}\\p{IsHiragana}\\p{IsKatakana}].*");
    }

    @Test
    void batchAnswersEveryPartInRequestOrder() throws IOException {
        List<Message> listed = gmail.users().messages().list("me").setMaxResults(60L).execute().getMessages();
        List<String> answered = Collections.synchronizedList(new ArrayList<>());
        BatchRequest batch = gmail.batch();
        for (Message m : listed) {
            gmail.users().messages().get("me", m.getId()).setFormat("metadata").queue(batch, new JsonBatchCallback<>() {
                @Override
                public void onSuccess(Message message, HttpHeaders headers) {
                    answered.add(message.getId());
                }

                @Override
                public void onFailure(GoogleJsonError e, HttpHeaders headers) {
                    answered.add("error " + e.getCode());
                }
            });
        }
        long before = emulator.counters().batchRequests();
        batch.execute();
        assertThat(answered).containsExactlyElementsOf(listed.stream().map(Message::getId).toList());
        assertThat(emulator.counters().batchRequests()).isEqualTo(before + 1);
    }

    @Test
    void batchPartsFailOnTheirOwn() throws IOException {
        List<String> outcomes = new ArrayList<>();
        BatchRequest batch = gmail.batch();
        JsonBatchCallback<Message> callback = new JsonBatchCallback<>() {
            @Override
            public void onSuccess(Message message, HttpHeaders headers) {
                outcomes.add("ok");
            }

            @Override
            public void onFailure(GoogleJsonError e, HttpHeaders headers) {
                outcomes.add(e.getCode() + " " + e.getErrors().getFirst().getReason());
            }
        };
        gmail.users().messages().get("me", firstId("")).queue(batch, callback);
        gmail.users().messages().get("me", "0000000000000001").queue(batch, callback);
        gmail.users().messages().get("me", "zz-not-hex").queue(batch, callback);
        batch.execute();
        assertThat(outcomes).containsExactly("ok", "404 notFound", "400 invalidArgument");
    }

    @Test
    void modifyShowsUpInHistoryAndTooOldHistoryIs404() throws IOException {
        Profile profile = gmail.users().getProfile("me").execute();
        String id = firstId("is:unread");
        Message changed = gmail.users().messages().modify("me", id,
                new ModifyMessageRequest().setRemoveLabelIds(List.of("UNREAD")).setAddLabelIds(List.of("STARRED"))).execute();
        assertThat(changed.getLabelIds()).contains("STARRED").doesNotContain("UNREAD");
        ListHistoryResponse history = gmail.users().history().list("me").setStartHistoryId(profile.getHistoryId()).execute();
        assertThat(history.getHistory()).hasSize(1);
        History h = history.getHistory().getFirst();
        assertThat(h.getLabelsAdded().getFirst().getLabelIds()).containsExactly("STARRED");
        assertThat(h.getLabelsRemoved().getFirst().getLabelIds()).containsExactly("UNREAD");
        assertThat(history.getHistoryId()).isGreaterThan(profile.getHistoryId());

        assertThatThrownBy(() -> gmail.users().history().list("me").setStartHistoryId(BigInteger.ONE).execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> assertThat(e.getStatusCode()).isEqualTo(404));
    }

    @Test
    void threadsListAndGetInChronologicalOrder() throws IOException {
        List<Thread> threads = gmail.users().threads().list("me").setQ("label:work").setMaxResults(50L).execute().getThreads();
        Thread longest = null;
        for (Thread t : threads) {
            Thread full = gmail.users().threads().get("me", t.getId()).setFormat("minimal").execute();
            if (longest == null || full.getMessages().size() > longest.getMessages().size()) {
                longest = full;
            }
        }
        assertThat(longest.getMessages().size()).isGreaterThan(1);
        List<Long> dates = longest.getMessages().stream().map(Message::getInternalDate).toList();
        assertThat(dates).isSorted();
        String threadId = longest.getId();
        assertThat(longest.getMessages()).allMatch(m -> m.getThreadId().equals(threadId));
    }

    @Test
    void labelsListAndGetWithCounts() throws IOException {
        var labels = gmail.users().labels().list("me").execute().getLabels();
        assertThat(labels).extracting("id").contains("INBOX", "UNREAD", "SPAM", "TRASH", "CATEGORY_PROMOTIONS");
        var work = labels.stream().filter(l -> l.getName().equals("Work")).findFirst().orElseThrow();
        assertThat(work.getType()).isEqualTo("user");
        assertThat(work.getId()).startsWith("Label_");
        var inbox = gmail.users().labels().get("me", "INBOX").execute();
        assertThat(inbox.getMessagesTotal()).isPositive();
        assertThat(inbox.getMessagesUnread()).isPositive().isLessThan(inbox.getMessagesTotal());
    }

    @Test
    void errorsParseIntoTheClientsOwnExceptionType() {
        assertThatThrownBy(() -> gmail.users().messages().get("me", "abc123").execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(404);
                    assertThat(e.getDetails().getErrors().getFirst().getReason()).isEqualTo("notFound");
                });
        assertThatThrownBy(() -> gmail.users().messages().get("me", "ffffffffffffffff").execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(400);
                    assertThat(e.getDetails().getMessage()).isEqualTo("Invalid id value");
                });
        assertThatThrownBy(() -> gmail.users().messages().get("me", firstId("")).setFormat("everything").execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(400);
                    assertThat(e.getDetails().getMessage()).contains("format");
                });
        Gmail wrongToken = JavaGmailClient.connect(emulator, "wrong");
        assertThatThrownBy(() -> wrongToken.users().getProfile("me").execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(401);
                    assertThat(e.getDetails().getErrors().getFirst().getReason()).isEqualTo("authError");
                });
        assertThatThrownBy(() -> gmail.users().getProfile("someone.else@example.com").execute())
                .isInstanceOfSatisfying(GoogleJsonResponseException.class, e -> assertThat(e.getStatusCode()).isEqualTo(403));
    }

    @Test
    void acceptsTheAccountAddressAsUserId() throws IOException {
        assertThat(gmail.users().getProfile("me@example.com").execute().getEmailAddress()).isEqualTo("me@example.com");
    }

    private static String firstId(String q) throws IOException {
        return gmail.users().messages().list("me").setQ(q).setMaxResults(1L).execute().getMessages().getFirst().getId();
    }
}
