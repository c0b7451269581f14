package dev.agenttools.bench;

import dev.agenttools.gmail.MailText;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolRegistry;
import org.HdrHistogram.Histogram;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How long get_email's HTML-to-text takes on the mailbox's largest HTML message (the seeded 1.1 MB digest),
 * measured in-process without the network.
 */
final class DecodingBench {
    private static final int JIT_WARMUP = 10;

    private DecodingBench() {
    }

    /** Null when the mailbox has no such message (a loaded mailbox, or real Gmail). */
    static Map<String, Object> run(ToolRegistry tools, int runs) {
        var found = tools.call(new ToolCall("gmail.search-emails", Json.object().put("query", "larger:1M subject:digest")
                .put("max_results", 1), "bench", null)).data().get("emails");
        if (found == null || found.isEmpty()) {
            return null;
        }
        String html = tools.call(new ToolCall("gmail.get-email", Json.object().put("message_id", found.get(0).get("id").asText())
                .put("include_html", true).put("max_body_chars", 10_000_000), "bench", null)).data().get("body_html").asText();
        for (int i = 0; i < JIT_WARMUP; i++) {
            MailText.htmlToText(html);
        }
        Histogram h = new Histogram(60_000_000L, 3);
        int chars = 0;
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            chars = MailText.htmlToText(html).length();
            h.recordValue((System.nanoTime() - start) / 1_000);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", "get_email body: HTML to text");
        m.put("html_bytes", html.getBytes(StandardCharsets.UTF_8).length);
        m.put("text_chars", chars);
        m.put("runs", runs);
        m.put("p50_ms", h.getValueAtPercentile(50) / 1e3);
        m.put("p90_ms", h.getValueAtPercentile(90) / 1e3);
        m.put("max_ms", h.getMaxValue() / 1e3);
        return m;
    }
}
