package dev.agenttools.gmail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Strategy;
import dev.agenttools.mailindex.MailIndex;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.Diagnostics;
import dev.agenttools.tool.FanOut;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolResult;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

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
    /** What a list asks of the local mail index (its {@code cache} param). */
    enum IndexUse {
        /** Answer from the index what it holds, fetch the rest. */
        AUTO,
        /** Ask Gmail for everything; the index is left alone. */
        OFF,
        /** Ask Gmail for everything and rebuild the account's index from the answer. */
        REFRESH;

        static final List<String> NAMES = Arrays.stream(values()).map(u -> u.name().toLowerCase(Locale.ROOT)).toList();

        static IndexUse of(Params p, String param) {
            return valueOf(p.choice(param, NAMES, "auto").toUpperCase(Locale.ROOT));
        }
    }

    private final GmailService service;

    MailLister(GmailService service) {
        this.service = service;
    }

    /**
     * What to list: a label, or a query, and the page, by when.
     *
     */
    record Request(String label, String query, int maxResults, String pageToken, Strategy strategy, IndexUse cache,
                   Deadline deadline, String accessToken) {
    }

    ToolResult list(Request r) throws InterruptedException {
        // client set-up (transport, TLS context, stored sign-in) is inside the deadline: a cold start counts
        GmailService.Session session = service.sessionFor(r.accessToken());
        // the quota of the whole list is promised before its first request, or the list refused before it spends any
        try (var _ = service.admitList(session, r.maxResults(), r.strategy(), r.deadline())) {
            return listAdmitted(r, session);
        }
    }

    private ToolResult listAdmitted(Request r, GmailService.Session session) throws InterruptedException {
        Deadline deadline = r.deadline();
        String labelId = r.label() == null ? null : service.labelId(session, r.label(), deadline);
        if (r.cache() != IndexUse.OFF) {
            // empty when there is no index to use now, or it failed this list (then it is dealt with as it asks)
            Optional<ToolResult> fromIndex = service.index().use(index -> indexed(r, session, labelId, index));
            if (fromIndex.isPresent()) {
                return fromIndex.get();
            }
        }
        ListMessagesResponse listed = service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline);
        return answer(session, listed, Map.of(), r, null, null);
    }

    /** The list with the index: one round trip when the index knows the listed messages. */
    private ToolResult indexed(Request r, GmailService.Session session, String labelId, MailIndex index) throws InterruptedException {
        Deadline deadline = r.deadline();
        String credential = service.settings().rootUrl() + "|" + session.credentialKey();
        // a credential the index has not met may be a known address's (a refreshed token): its index, no getProfile
        Optional<String> known = r.cache() == IndexUse.REFRESH ? Optional.empty() : index.accountOf(credential)
                .or(() -> session.address().map(address -> service.settings().rootUrl() + "|" + address));
        Optional<BigInteger> since = known.flatMap(index::historyId);
        ListMessagesResponse listed;
        String account;
        if (since.isPresent()) {
            account = known.get();
            // both at once: the list as Gmail has it now, and what changed since the index was synced
            Both<ListMessagesResponse, GmailService.HistoryRead> both = atOnce(deadline, "gmail list with history",
                    () -> service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline),
                    () -> service.history(session, since.get(), deadline));
            listed = both.first();
            switch (both.second()) {
                case GmailService.Changes changes -> index.apply(account, changes.labels(), changes.deleted(), changes.historyId());
                // Gmail keeps history about a week: past that the account's index starts again from now
                case GmailService.TooOld _ -> index.reset(account, service.profile(session, deadline).historyId());
                case GmailService.Unreplayable unreplayable -> {
                    // not the 404 every index meets after a week away: say what the server did, and start again as for one
                    Diagnostics.warn("rebuilding the mail index from the list: " + unreplayable.why());
                    index.reset(account, service.profile(session, deadline).historyId());
                }
            }
        } else {
            Both<ListMessagesResponse, GmailService.Profile> both = atOnce(deadline, "gmail list with profile",
                    () -> service.list(session, labelId, r.query(), r.maxResults(), r.pageToken(), deadline),
                    () -> service.profile(session, deadline));
            listed = both.first();
            GmailService.Profile profile = both.second();
            account = service.settings().rootUrl() + "|" + profile.address();
            index.remember(credential, account);
            // the profile's historyId was read no later than the gets below, so replaying history from it later
            // repeats at most label changes the gets already saw (setting labels again is harmless)
            index.reset(account, profile.historyId());
        }
        List<String> ids = listed.getMessages() == null ? List.of() : listed.getMessages().stream().map(Message::getId).toList();
        return answer(session, listed, index.summaries(account, ids, MailLister::fromIndex), r, index, account);
    }

    /** The answers of two calls sent at once, each of its own type. */
    private record Both<A, B>(A first, B second) {
    }

    /**
     * Sends two calls at once, in one fan-out (the first failure or the deadline cancels the other). Each fills a slot
     * of its own type, so that neither answer passes through {@code Object} and a cast.
     */
    private static <A, B> Both<A, B> atOnce(Deadline deadline, String what, Callable<A> first, Callable<B> second) {
        AtomicReference<A> a = new AtomicReference<>();
        AtomicReference<B> b = new AtomicReference<>();
        List<Callable<Boolean>> calls = List.of(() -> {
            a.set(first.call());
            return true;
        }, () -> {
            b.set(second.call());
            return true;
        });
        FanOut.map(calls, 2, deadline, what, Callable::call); // returns once both answered: their slots are set
        return new Both<>(a.get(), b.get());
    }

    /**
     * Fetches what {@code known} does not hold, then answers in Gmail's order; keeps what was fetched whole in the
     * index (when there is one).
     */
    private ToolResult answer(GmailService.Session session, ListMessagesResponse listed, Map<String, EmailSummary> known,
                              Request r, MailIndex index, String account) throws InterruptedException {
        List<Message> refs = listed.getMessages() == null ? List.of() : listed.getMessages();
        List<String> missing = refs.stream().map(Message::getId).filter(id -> !known.containsKey(id)).toList();
        Strategy strategy = r.strategy().resolve(missing.size());
        List<Fetched> fetched = service.fetch(session, strategy, missing, GmailService.View.SUMMARY, r.deadline());
        Map<String, Fetched> byId = new HashMap<>();
        for (int i = 0; i < missing.size(); i++) {
            byId.put(missing.get(i), fetched.get(i));
        }
        List<EmailSummary> emails = new ArrayList<>(refs.size());
        List<MailIndex.Entry> whole = new ArrayList<>();
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
                        Long internal = found.message().getInternalDate();
                        whole.add(toIndex(found.summary(), internal == null ? 0L : internal));
                    }
                }
            }
        }
        if (index != null) {
            index.put(account, whole);
        }
        EmailList list = new EmailList(emails, listed.getNextPageToken(), skipped, errors);
        // what answered: the fetch strategy when anything was fetched, the index alone when nothing was
        Backend backend = index != null && missing.isEmpty() ? Backend.INDEX : strategy.backend();
        return new ToolResult(Json.tree(list), backend, emails.size());
    }

    /** What the index keeps of a summary fetched whole: its JSON without the labels, which are kept apart (they change). */
    private static MailIndex.Entry toIndex(EmailSummary s, long internalDate) {
        try {
            return new MailIndex.Entry(s.id(), internalDate, Json.MAPPER.writeValueAsString(withLabels(s, null)), s.labelIds());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an index entry", e); // a record of strings always can be
        }
    }

    /** A summary the index kept, with its labels now; throws (the index then counts the file damaged) when it is not one. */
    private static EmailSummary fromIndex(String json, List<String> labels) {
        try {
            return withLabels(Json.MAPPER.readValue(json, EmailSummary.class), labels);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not an entry: " + e.getOriginalMessage(), e);
        }
    }

    /** The summary with these labels and the unread flag they give (as MessageDecoder derives it); null: neither. */
    private static EmailSummary withLabels(EmailSummary s, List<String> labels) {
        return new EmailSummary(s.id(), s.threadId(), s.subject(), s.from(), s.to(), s.date(), s.dateSource(), s.dateRaw(),
                s.snippet(), labels, labels == null ? null : labels.contains("UNREAD"), s.hasAttachments());
    }
}
