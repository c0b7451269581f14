package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.api.services.gmail.model.Message;
import com.google.api.services.gmail.model.MessagePart;
import com.google.api.services.gmail.model.MessagePartBody;
import com.google.api.services.gmail.model.MessagePartHeader;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message the decoder trips on is answered with what can still be read and an error that says why, never a failed
 * call and never a guess. The decoder here is the real one behind a tripwire the test chooses, so these tests hold
 * whatever shapes of mail the real decoder comes to trip on.
 */
class SalvageTest {
    private static final String ID = "18c0ffee00000001";
    private static final String THREAD = "18c0ffee00000000";

    private static MessagePartHeader header(String name, String value) {
        return new MessagePartHeader().setName(name).setValue(value);
    }

    private static MessagePart part(String mimeType, String text) {
        return new MessagePart().setMimeType(mimeType).setBody(new MessagePartBody()
                .setData(Base64.getUrlEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8))));
    }

    /** A two-part email: a text part and a part of a type the tripwire below refuses. */
    private static Message message() {
        MessagePart payload = new MessagePart().setMimeType("multipart/mixed").setHeaders(List.of(
                header("Subject", "Quarterly numbers"), header("From", "Amy <amy@example.com>"),
                header("To", "me@example.com"), header("Date", "Tue, 3 Mar 2026 09:15:00 +0100")))
                .setParts(List.of(part("text/plain", "See attached."), part("x-test/unreadable", "?")));
        return new Message().setId(ID).setThreadId(THREAD).setLabelIds(List.of("INBOX", "UNREAD"))
                .setSnippet("See attached &amp; reply").setInternalDate(1_772_525_700_000L).setPayload(payload);
    }

    /** The real decoder, except that it throws on any x-test/unreadable part or on a From header of "broken". */
    private static <T> Function<Message, T> trippingOnWeirdParts(Function<Message, T> decoder) {
        return m -> {
            if (m.getPayload() != null && m.getPayload().getParts() != null && m.getPayload().getParts().stream()
                    .anyMatch(p -> p.getMimeType().equals("x-test/unreadable"))) {
                throw new IllegalStateException("cannot read x-test/unreadable\n\tat Decoder.part(Decoder.java:1)");
            }
            if ("broken".equals(MessageDecoder.header(m.getPayload(), "From"))) {
                throw new IllegalArgumentException("unreadable From");
            }
            return decoder.apply(m);
        };
    }

    @Test
    void aSummaryTheDecoderTripsOnKeepsHeadersLabelsAndSnippetAndLeavesOutWhatHangsOnTheParts() {
        Salvage.Read<EmailSummary> read = Salvage.summary(message(), ID, THREAD, trippingOnWeirdParts(MessageDecoder::summary));

        JsonNode email = Json.tree(read.email());
        assertThat(email.get("id").asText()).isEqualTo(ID);
        assertThat(email.get("thread_id").asText()).isEqualTo(THREAD);
        assertThat(email.get("subject").asText()).isEqualTo("Quarterly numbers");
        assertThat(email.get("from").asText()).isEqualTo("Amy <amy@example.com>");
        assertThat(email.get("to").asText()).isEqualTo("me@example.com");
        assertThat(email.get("date").asText()).isEqualTo("2026-03-03T09:15:00+01:00");
        assertThat(email.get("snippet").asText()).isEqualTo("See attached & reply");
        assertThat(email.get("unread").asBoolean()).isTrue();
        assertThat(email.has("has_attachments")).as("its parts were not read").isFalse();
        assertThat(read.error()).isEqualTo(new MessageError(ID, "internal", "the message was fetched but could not be "
                + "decoded (IllegalStateException: cannot read x-test/unreadable at Decoder.part(Decoder.java:1)); "
                + "only what could be read is shown"));
        assertThat(read.error().message()).doesNotContain("\n").doesNotContain("\t");
    }

    @Test
    void aHeaderTheDecoderCannotReadIsLeftOutAndTheOtherHeadersKept() {
        Message m = message();
        m.getPayload().setParts(List.of(part("text/plain", "Hello")));
        m.getPayload().setHeaders(List.of(header("Subject", "Hello"), header("From", "broken"), header("To", "me@example.com")));

        Salvage.Read<EmailSummary> read = Salvage.summary(m, ID, THREAD, trippingOnWeirdParts(MessageDecoder::summary));

        assertThat(read.email().subject()).isEqualTo("Hello");
        assertThat(read.email().to()).isEqualTo("me@example.com");
        assertThat(read.email().from()).isNull();
        assertThat(read.error().message()).contains("IllegalArgumentException: unreadable From");
    }

    @Test
    void aMessageNothingOfWhichCanBeDecodedIsAnsweredWithItsIdsAlone() {
        Function<Message, EmailSummary> hopeless = m -> {
            throw new StackOverflowError();
        };

        Salvage.Read<EmailSummary> read = Salvage.summary(message(), ID, THREAD, hopeless);

        assertThat(Json.write(Json.tree(read.email())))
                .isEqualTo("{\"id\":\"" + ID + "\",\"thread_id\":\"" + THREAD + "\",\"subject\":\"(no subject)\"}");
        assertThat(read.error().message()).contains("(StackOverflowError)");
    }

    @Test
    void aWholeEmailTheDecoderTripsOnIsAnsweredWithItsHeadersAndErrorsButNoGuessedBody() {
        EmailDetail detail = Salvage.detail(message(), ID,
                trippingOnWeirdParts(m -> MessageDecoder.detail(m, 1_000, false)));

        JsonNode email = Json.tree(detail);
        assertThat(email.get("subject").asText()).isEqualTo("Quarterly numbers");
        assertThat(email.get("date_raw").asText()).isEqualTo("Tue, 3 Mar 2026 09:15:00 +0100");
        assertThat(email.get("label_ids")).hasSize(2);
        for (String unknown : new String[] {"body", "attachments", "has_attachments", "truncated"}) {
            assertThat(email.has(unknown)).as(unknown).isFalse();
        }
        assertThat(email.get("errors")).hasSize(1);
        assertThat(email.get("errors").get(0).get("code").asText()).isEqualTo("internal");
        assertThat(email.get("errors").get(0).get("id").asText()).isEqualTo(ID);
    }

    @Test
    void aWholeEmailTheDecoderReadsHasNoErrorsField() {
        Message m = message();
        m.getPayload().setParts(List.of(part("text/plain", "See attached.")));

        JsonNode email = Json.tree(Salvage.detail(m, ID, 1_000, false));

        assertThat(email.get("body").asText()).isEqualTo("See attached.");
        assertThat(email.get("truncated").asBoolean()).isFalse();
        assertThat(email.has("errors")).isFalse();
    }
}
