package dev.agenttools.gmail;

import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.FanOut;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The list-then-fetch flow shared by list_emails and search_emails. One email that cannot be fetched or decoded
 * does not fail the list: it keeps its place with what could be read, and the answer's {@code errors} names it.
 *
 * <p>With the local mail index ({@link MailIndex}) a list asked again costs one round trip: messages.list and
 * history.list (from the historyId the index is synced to) go at once, the label changes and deletions are applied,
 * and only the ids the index does not hold are fetched. The first list of an account asks users.getProfile beside
 * messages.list (who the credential is, and the historyId to sync from). A history too old for Gmail (404), one
 * longer than {@link GmailService#HISTORY_PAGES} pages or whose pages do not end (a page token sent again) rebuilds
 * the account from the answer; an index found damaged is set aside (a new one is made by the next list) and one that
 * cannot be used now is left alone, the list answering from Gmail. The answer is the same either way. Thread-safe.
 */
final class MailLister {
    /** history.list's 404: Gmail no longer has the history the index is synced to. */
    private static final GmailService.Unreplayable TOO_OLD = new GmailService.Unreplayable("history too old");
    private final GmailService service;

    MailLister(GmailService service) {
        this.service = service;
    }

    /**
     * What to list: a label, or a query, and the page, by when.
     *
     * @param cache {@code auto}, {@code off} or {@code refresh} (rebuild the account's index from this answer)
     */
    record Request(String label, String query, int maxResults, String pageToken, String strategy, String cache,
                   Deadline deadline, String accessToken) {
    }

    ToolResult list(Request r) {
        Deadline deadline = r.deadline();
        return FanOut.one(deadline, "gmail list", () -> {
            // client set-up (transport, TLS context, stored sign-in) is inside the deadline: a cold start counts
            GmailService.Session session = service.open(r.accessToken());
            String labelId = r.label() == null ? null : service.labelId(session, r.label(), deadline);
            MailIndex index = r.cache().equals("off") ? null : service.index();
            if (index != null) {
                try {
                    return indexed(r, session, labelId, index);
                } catch (MailIndex.Damaged damaged) {
                    // set aside, and a new one made by the next list; this one goes on without it
                    service.indexDamaged(index, damaged);
                } catch (MailIndex.Replaced replaced) {
                    service.indexReplaced(index);
                } catch (IllegalStateException failed) {
                    // an index that cannot be read or written now (read-only, disk full) must not fail the list
                    service.indexFailed(index, failed);
                }
            }
            ListMessagesResponse listed = service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline);
            return answer(session, listed, Map.of(), r, null, null);
        });
    }

    /** The list with the index: one round trip when the index knows the listed messages. */
    private ToolResult indexed(Request r, GmailService.Session session, String labelId, MailIndex index) throws InterruptedException {
        Deadline deadline = r.deadline();
        String credential = service.settings().rootUrl() + "|" + session.credentialKey();
        // a credential the index has not met may be a known address's (a refreshed token): its index, no getProfile
        Optional<String> known = r.cache().equals("refresh") ? Optional.empty() : index.accountOf(credential)
                .or(() -> session.address().map(address -> service.settings().rootUrl() + "|" + address));
        Optional<BigInteger> since = known.flatMap(index::historyId);
        ListMessagesResponse listed;
        String account;
        if (since.isPresent()) {
            account = known.get();
            // both at once: the list as Gmail has it now, and what changed since the index was synced
            List<Object> both = FanOut.map(List.of(0, 1), 2, deadline, "gmail list with history", i -> i == 0
                    ? service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline)
                    : changesSince(session, since.get(), deadline));
            listed = (ListMessagesResponse) both.get(0);
            switch ((GmailService.HistoryRead) both.get(1)) {
                case GmailService.Changes changes -> index.apply(account, changes);
                case GmailService.Unreplayable unreplayable -> {
                    if (unreplayable != TOO_OLD) {
                        // not the 404 every index meets after a week away: say what the server did
                        System.err.println("agent-tools: rebuilding the mail index from the list: " + unreplayable.why());
                    }
                    // Gmail keeps history about a week: past that the account's index starts again from now
                    index.reset(account, service.profile(session, deadline).historyId());
                }
            }
        } else {
            List<Object> both = FanOut.map(List.of(0, 1), 2, deadline, "gmail list with profile", i -> i == 0
                    ? service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline)
                    : service.profile(session, deadline));
            listed = (ListMessagesResponse) both.get(0);
            GmailService.Profile profile = (GmailService.Profile) both.get(1);
            account = service.settings().rootUrl() + "|" + profile.address();
            index.remember(credential, account);
            // the profile's historyId was read no later than the gets below, so replaying history from it later
            // repeats at most label changes the gets already saw (setting labels again is harmless)
            index.reset(account, profile.historyId());
        }
        List<String> ids = listed.getMessages() == null ? List.of() : listed.getMessages().stream().map(Message::getId).toList();
        return answer(session, listed, index.summaries(account, ids), r, index, account);
    }

    /** history.list since {@code start}; {@link #TOO_OLD} when Gmail no longer has that history. */
    private GmailService.HistoryRead changesSince(GmailService.Session session, BigInteger start, Deadline deadline)
            throws InterruptedException {
        try {
            return service.history(session, start, deadline);
        } catch (ToolException e) {
            if (e.kind() == ToolException.Kind.NOT_FOUND) {
                return TOO_OLD;
            }
            throw e;
        }
    }

    /**
     * Fetches what {@code known} does not hold, then answers in Gmail's order; keeps what was fetched whole in the
     * index (when there is one).
     */
    private ToolResult answer(GmailService.Session session, ListMessagesResponse listed, Map<String, EmailSummary> known,
                              Request r, MailIndex index, String account) throws InterruptedException {
        List<Message> refs = listed.getMessages() == null ? List.of() : listed.getMessages();
        List<String> missing = refs.stream().map(Message::getId).filter(id -> !known.containsKey(id)).toList();
        FetchStrategy strategy = FetchStrategy.named(r.strategy(), service, missing.size());
        List<Fetched> fetched = strategy.fetch(session, missing, GmailService.View.SUMMARY, r.deadline());
        Map<String, Fetched> byId = new HashMap<>();
        for (int i = 0; i < missing.size(); i++) {
            byId.put(missing.get(i), fetched.get(i));
        }
        List<EmailSummary> emails = new ArrayList<>(refs.size());
        List<EmailSummary> whole = new ArrayList<>();
        Map<String, Long> dates = new HashMap<>();
        List<MessageError> errors = new ArrayList<>();
        int skipped = 0;
        for (Message ref : refs) {
            EmailSummary kept = known.get(ref.getId());
            if (kept != null) {
                emails.add(kept);
                continue;
            }
            switch (byId.get(ref.getId())) {
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
                    } else if (found.summary() != null) {
                        whole.add(found.summary());
                        Long internal = found.message().getInternalDate();
                        dates.put(ref.getId(), internal == null ? 0L : internal);
                    }
                }
            }
        }
        if (index != null) {
            index.put(account, whole, dates);
        }
        EmailList list = new EmailList(emails, listed.getNextPageToken(), skipped, errors);
        // what answered: the fetch strategy when anything was fetched, the index alone when nothing was
        String backend = index != null && missing.isEmpty() ? "index" : strategy.name();
        return new ToolResult(Json.tree(list), backend, emails.size(), Duration.ZERO);
    }
}
