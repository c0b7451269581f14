package dev.agenttools.gmail;

import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Deadline;
import dev.agenttools.google.FanOut;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The list-then-fetch flow shared by list_emails and search_emails. Thread-safe. */
final class MailLister {
    private final GmailService service;

    MailLister(GmailService service) {
        this.service = service;
    }

    /** What to list: a label, or a query, and the page. */
    record Request(String label, String query, int maxResults, String pageToken, String strategy, Duration timeout,
                   String accessToken) {
    }

    ToolResult list(Request r) {
        Deadline deadline = Deadline.in(r.timeout());
        Gmail gmail = service.client(r.accessToken());
        return FanOut.one(deadline, "gmail list", () -> {
            String labelId = r.label() == null ? null : service.labelId(gmail, r.accessToken(), r.label(), deadline);
            ListMessagesResponse listed = service.list(gmail, labelId, r.query(), r.maxResults(), r.pageToken(), deadline);
            List<String> ids = listed.getMessages() == null ? List.of()
                    : listed.getMessages().stream().map(Message::getId).toList();
            FetchStrategy strategy = FetchStrategy.named(r.strategy(), service, ids.size());
            List<Message> messages = strategy.fetch(gmail, ids, GmailService.View.SUMMARY, deadline);
            List<EmailSummary> emails = new ArrayList<>(messages.size());
            int skipped = 0;
            for (Message m : messages) {
                if (m == null) {
                    skipped++;
                } else {
                    emails.add(MessageDecoder.summary(m));
                }
            }
            EmailList list = new EmailList(emails, listed.getNextPageToken(), skipped);
            return new ToolResult(Json.tree(list), strategy.name(), emails.size(), Duration.ZERO);
        });
    }
}
