package dev.agenttools.gmail;

import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.extension.RegisterExtension;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.gmail.GmailToolsTest.fastSettings;
import static dev.agenttools.gmail.GmailToolsTest.obj;
import static org.assertj.core.api.Assertions.assertThat;

/** get_email on every MIME shape of the seeded mailbox, over HTTP: the text an agent reads must be right. */
class GetEmailTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    private static ToolRegistry tools;

    @BeforeAll
    static void start() {
        emulator = emulators.start(fastEmulator().build());
        tools = Tools.builder().gmail(fastSettings(emulator)).defaultAccessToken("t").build();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private static JsonNode first(String query) {
        JsonNode emails = tools.call(ToolCall.of(GmailTools.SEARCH, obj("{\"query\":" + quote(query) + ",\"max_results\":1}")))
                .data().get("emails");
        assertThat(emails).as("a message for %s", query).hasSize(1);
        return emails.get(0);
    }

    private static JsonNode get(String id, String extra) {
        return tools.call(ToolCall.of(GmailTools.GET, obj("{\"message_id\":\"" + id + "\"" + extra + "}"))).data();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\"", "\\\"") + "\"";
    }

    @Test
    void decodesIso2022JpBodiesAndSubjects() {
        JsonNode summary = first("モーガン様 -has:attachment");
        JsonNode email = get(summary.get("id").asText(), "");
        assertThat(email.get("body").asText()).startsWith("モーガン様").contains("。");
        assertThat(email.get("subject").asText()).matches(".*[\\p{IsHan}\\p{IsHiragana}\\p{IsKatakana}].*").doesNotContain("=?");
        assertThat(email.get("from").asText()).matches(".*[\\p{IsHan}].*<.+@.+>");
        assertThat(summary.get("subject")).isEqualTo(email.get("subject"));
    }

    @Test
    void turnsHtmlOnlyMailIntoTextWithLinks() {
        JsonNode email = get(first("subject:\"this week\"").get("id").asText(), ",\"include_html\":true");
        String body = email.get("body").asText();
        assertThat(body).contains("Read online (https://news.example/read)").contains("Don't miss out & save 20%");
        assertThat(body).doesNotContain("<p>").doesNotContain("&amp;").doesNotContain("=3D");
        assertThat(email.get("body_html").asText()).contains("<h1>This week</h1>");
    }

    @Test
    void prefersThePlainPartOfAlternativeMailAndListsAttachments() {
        JsonNode email = get(first("subject:receipt filename:pdf").get("id").asText(), "");
        assertThat(email.get("body").asText()).startsWith("Thank you for your purchase.").doesNotContain("<");
        JsonNode attachment = email.get("attachments").get(0);
        assertThat(attachment.get("filename").asText()).endsWith(".pdf");
        assertThat(attachment.get("mime_type").asText()).isEqualTo("application/pdf");
        assertThat(attachment.get("size").asLong()).isPositive();
        assertThat(attachment.get("attachment_id").asText()).isNotBlank();
        assertThat(email.get("has_attachments").asBoolean()).isTrue();
        assertThat(email.has("body_html")).isFalse();
    }

    @Test
    void readsRelatedMailWithInlineImages() {
        JsonNode email = get(first("filename:itinerary.ics").get("id").asText(), "");
        assertThat(email.get("attachments").findValuesAsText("filename")).contains("logo.png", "itinerary.ics");
        assertThat(email.get("body").asText()).isNotBlank().doesNotContain("<img");
    }

    @Test
    void decodesQuotedPrintableAndBase64Parts() {
        JsonNode social = get(first("mentioned you").get("id").asText(), "");
        assertThat(social.get("body").asText()).contains(" wrote: \"").doesNotContain("=3D").doesNotContain("=\n");
        JsonNode japaneseUtf8 = get(first("いつもお世話になっております -モーガン様").get("id").asText(), "");
        assertThat(japaneseUtf8.get("body").asText()).contains("いつもお世話になっております");
    }

    @Test
    void cutsLongBodiesAndSaysSo() {
        String id = first("subject:\"monthly digest\"").get("id").asText();
        JsonNode cut = get(id, "");
        assertThat(cut.get("body").asText()).hasSize(20_000);
        assertThat(cut.get("truncated").asBoolean()).isTrue();
        JsonNode whole = get(id, ",\"max_body_chars\":5000000");
        assertThat(whole.get("truncated").asBoolean()).isFalse();
        assertThat(whole.get("body").asText()).hasSizeGreaterThan(200_000).contains("Read more (https://news.example/item/1)");
    }

    @Test
    void givesAPlaceholderForAMissingSubjectAndRfc3339Dates() {
        JsonNode email = get(first("\"Sent from my phone\"").get("id").asText(), "");
        assertThat(email.get("subject").asText()).isEqualTo("(no subject)");
        assertThat(email.get("date").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(Z|[+-]\\d{2}:\\d{2})");
        assertThat(email.get("date_raw").asText()).matches("\\w{3}, \\d{1,2} \\w{3} \\d{4} .*");
        assertThat(email.get("snippet").asText()).doesNotContain("&#39;");
    }
}
