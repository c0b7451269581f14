package dev.agenttools.gmail;

import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.Emulators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.agenttools.gmail.GmailToolsTest.fastEmulator;
import static dev.agenttools.google.ClientParsed.asClientParsed;
import static dev.agenttools.google.ClientParsed.get;
import static dev.agenttools.google.ClientParsed.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Our streaming reader of Gmail's JSON builds what the Gmail client's own parser builds, on every seeded message. */
class GmailJsonTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();

    @Test
    void readsEveryMessageAsTheGmailClientDoes() throws Exception {
        try (Emulator emulator = emulators.start(fastEmulator().build()); HttpClient http = HttpClient.newHttpClient()) {
            String messages = emulator.rootUri() + "gmail/v1/users/me/messages";
            List<String> ids = new ArrayList<>();
            String page = null;
            do {
                byte[] json = get(http, messages + "?maxResults=500&includeSpamTrash=true"
                        + (page == null ? "" : "&pageToken=" + URLEncoder.encode(page, StandardCharsets.UTF_8)));
                ListMessagesResponse listed = GmailJson.list(json);
                assertThat(written(listed)).isEqualTo(asClientParsed(json, ListMessagesResponse.class));
                listed.getMessages().forEach(m -> ids.add(m.getId()));
                page = listed.getNextPageToken();
            } while (page != null);
            assertThat(ids).hasSizeGreaterThan(1000);
            String summary = URLEncoder.encode(GmailService.SUMMARY_FIELDS, StandardCharsets.UTF_8);
            for (int i = 0; i < ids.size(); i++) {
                String id = ids.get(i);
                // a summary is a subset of the whole message: a sample of them suffices
                for (String query : i % 20 == 0 ? List.of("?format=full", "?format=full&fields=" + summary) : List.of("?format=full")) {
                    byte[] json = get(http, messages + "/" + id + query);
                    Message ours = GmailJson.message(json);
                    assertThat(written(ours)).as(id + query).isEqualTo(asClientParsed(json, Message.class));
                }
            }
        }
    }

    @Test
    void readsNumbersSentAsStringsOrBareAndSkipsUnknownFields() throws Exception {
        Message m = GmailJson.message(("{\"id\":\"a\",\"internalDate\":1795996709000,\"historyId\":\"7\",\"unknown\":{\"x\":[1,{}]},"
                + "\"payload\":{\"body\":{\"size\":3,\"extra\":null},\"headers\":[{\"name\":\"A\",\"value\":\"b\",\"more\":1}]},"
                + "\"sizeEstimate\":null}").getBytes(StandardCharsets.UTF_8));
        assertThat(m.getInternalDate()).isEqualTo(1795996709000L);
        assertThat(m.getHistoryId()).hasToString("7");
        assertThat(m.getPayload().getBody().getSize()).isEqualTo(3);
        assertThat(m.getPayload().getHeaders().getFirst().getValue()).isEqualTo("b");
        assertThat(m.getSizeEstimate()).isNull();
        assertThat(GmailJson.list("{\"resultSizeEstimate\":\"0\"}".getBytes(StandardCharsets.UTF_8)).getMessages()).isNull();
    }

    @Test
    void refusesJsonOfAnotherShape() {
        assertThatThrownBy(() -> GmailJson.message("[1]".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class).hasMessageContaining("START_OBJECT expected");
        assertThatThrownBy(() -> GmailJson.message("{\"labelIds\":\"INBOX\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class).hasMessageContaining("START_ARRAY expected");
    }
}
