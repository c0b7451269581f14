package dev.agenttools.gmail;

import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.tool.Deadline;
import dev.agenttools.google.FanOut;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The list-then-fetch flow shared by list_emails and search_emails. One email that cannot be fetched or decoded
 * does not fail the list: it keeps its place with what could be read, and the answer's {@code errors} names it.
 * Thread-safe.
 */
final class MailLister {
    private final GmailService service;

    MailLister(GmailService service) {
        this.service = service;
    }

    /** What to list: a label, or a query, and the page, by when. */
    record Request(String label, String query, int maxResults, String pageToken, String strategy, Deadline deadline,
                   String accessToken) {
    }

    ToolResult list(Request r) {
        Deadline deadline = r.deadline();
        return FanOut.one(deadline, "gmail list", () -> {
            // client set-up (transport, TLS context, stored sign-in) is inside the deadline: a cold start counts
            GmailService.Session session = service.open(r.accessToken());
            String labelId = r.label() == null ? null : service.labelId(session, r.label(), deadline);
            ListMessagesResponse listed = service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline);
            List<Message> refs = listed.getMessages() == null ? List.of() : listed.getMessages();
            List<String> ids = refs.stream().map(Message::getId).toList();
            FetchStrategy strategy = FetchStrategy.named(r.strategy(), service, ids.size());
            List<Fetched> fetched = strategy.fetch(session, ids, GmailService.View.SUMMARY, deadline);
            List<EmailSummary> emails = new ArrayList<>(fetched.size());
            List<MessageError> errors = new ArrayList<>();
            int skipped = 0;
            for (int i = 0; i < fetched.size(); i++) {
                Message ref = refs.get(i);
                switch (fetched.get(i)) {
                    case Fetched.Vanished _ -> skipped++;
                    case Fetched.Failed f -> {
                        emails.add(Salvage.unfetched(ref.getId(), ref.getThreadId()));
                        errors.add(f.error());
                    }
                    case Fetched.Found found -> {
                        Salvage.Read<EmailSummary> read = found.summary() != null ? new Salvage.Read<>(found.summary(), null)
                                : Salvage.summary(found.message(), ref.getId(), ref.getThreadId());
                        emails.add(read.email());
                        if (read.error() != null) {
                            errors.add(read.error());
                        }
                    }
                }
            }
            EmailList list = new EmailList(emails, listed.getNextPageToken(), skipped, errors);
            return new ToolResult(Json.tree(list), strategy.name(), emails.size(), Duration.ZERO);
        });
    }
}
