package dev.agenttools.gmail;

import com.google.api.client.googleapis.batch.BatchRequest;
import com.google.api.client.googleapis.json.GoogleJsonErrorContainer;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.History;
import com.google.api.services.gmail.model.HistoryLabelAdded;
import com.google.api.services.gmail.model.HistoryLabelRemoved;
import com.google.api.services.gmail.model.HistoryMessageDeleted;
import com.google.api.services.gmail.model.Label;
import com.google.api.services.gmail.model.ListHistoryResponse;
import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Account;
import dev.agenttools.google.BoundedBody;
import dev.agenttools.google.GoogleCalls;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.google.Outcome;
import dev.agenttools.google.PageTokens;
import dev.agenttools.google.PerAccount;
import dev.agenttools.google.Retry;
import dev.agenttools.google.Strategy;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.mailindex.OpenIndex;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.FanOut;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The Gmail calls the tools make, every one through the {@link GoogleCalls} path (paced per user, retried, bounded
 * by the call's deadline), over one shared HTTP/2 transport. One instance per Gmail root URL; thread-safe.
 */
final class GmailService implements AutoCloseable {
    /** Quota units of the calls we make (Gmail's published costs). */
    static final int LIST_UNITS = 5;
    static final int GET_UNITS = 5;
    static final int LABELS_UNITS = 1;
    /** users.getProfile costs 1 unit; users.history.list 2. */
    static final int PROFILE_UNITS = 1;
    static final int HISTORY_UNITS = 2;
    static final Set<String> SYSTEM_LABELS = Set.of("INBOX", "SPAM", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SENT",
            "DRAFT", "CHAT", "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES",
            "CATEGORY_FORUMS");
    /**
     * What a list needs of each message: headers, labels, snippet and the part tree's file names (for
     * has_attachments), but no body data, so a 2 MB message costs a few hundred bytes.
     */
    public static final String SUMMARY_FIELDS = "id,threadId,labelIds,snippet,internalDate,payload(mimeType,filename,headers,"
            + "parts(mimeType,filename,parts(mimeType,filename,parts(mimeType,filename,parts(mimeType,filename)))))";
    /**
     * The most of a summary answer read (as sent and once inflated): its top-level headers, snippet, labels and the
     * part tree's names. Mail servers cap a message's headers far below (Postfix's default 100 KiB, Exchange Online's
     * 256 KiB), so 1 MiB is never a real summary, and 20 summaries in flight hold at most 20 MiB of answer.
     */
    static final long MAX_SUMMARY_BYTES = 1L << 20;
    /** What a messages.list asks for: the thread id too, so that an email that cannot be fetched still has both. */
    public static final String LIST_FIELDS = "messages(id,threadId),nextPageToken";
    private static final String LIST_FIELDS_QUERY = GoogleConnection.encode(LIST_FIELDS);
    private static final String SUMMARY_FIELDS_QUERY = GoogleConnection.encode(SUMMARY_FIELDS);
    private static final String MESSAGES_PATH = "gmail/v1/users/me/messages";
    private static final int MAX_URL_LENGTH = GoogleConnection.MAX_URL_LENGTH;
    private static final String APPLICATION = "agent-tools";
    private static final Duration LABEL_CACHE_TTL = Duration.ofMinutes(5);
    /** Accounts whose labels are remembered; beyond, the least recently used are asked again. */
    private static final int LABEL_CACHE_ACCOUNTS = 1_000;

    /** How much of a message to fetch. */
    enum View { SUMMARY, DETAIL }

    /**
     * One call's way to Gmail: the connection's session (the account it acts as and its authorization) and the Gmail
     * client, built on first use: list and get never need it. Thread-safe.
     */
    static final class Session {
        private final GoogleConnection.Session google;
        private final Supplier<Gmail> client;
        private Gmail gmail;

        Session(GoogleConnection.Session google, Supplier<Gmail> client) {
            this.google = google;
            this.client = client;
        }

        Account account() {
            return google.account();
        }

        /** The credential's key (a digest, never the credential). */
        String credentialKey() {
            return google.credentialKey();
        }

        /** The account's address, when the connection knew it as the session opened. */
        Optional<String> address() {
            return google.address();
        }

        synchronized Gmail gmail() {
            if (gmail == null) {
                gmail = client.get();
            }
            return gmail;
        }
    }

    private final GmailSettings settings;
    private final GoogleConnection connection;
    private final GoogleCalls calls;
    /** Each account's labels as last listed (null until listed). */
    private final PerAccount<AtomicReference<Listed>> labels = new PerAccount<>(LABEL_CACHE_ACCOUNTS, a -> new AtomicReference<>());

    private record Listed(List<Label> labels, long fetchedNanos) {
    }

    /**
     * On the registry's connection to Google (shared with the other Google tools, closed by the registry), keeping a
     * local mail index as {@code cache} says.
     */
    public GmailService(GmailSettings settings, GoogleConnection connection, CacheSettings cache) {
        this(settings, Retry.DEFAULT, connection, cache);
    }

    GmailService(GmailSettings settings, Retry retry, GoogleConnection connection, CacheSettings cache) {
        this.settings = settings;
        this.connection = connection;
        this.index = new OpenIndex(cache);
        this.calls = new GoogleCalls("Gmail", settings.quotaPerMinute(), settings.burst(), settings.maxInFlight(), retry,
                connection.pacingShare(), connection.pacingStats());
    }

    /** The local mail index the lists keep (none when the cache is off). */
    private final OpenIndex index;

    OpenIndex index() {
        return index;
    }

    public GmailSettings settings() {
        return settings;
    }

    Retry retry() {
        return calls.retry();
    }

    /** Calls let in flight at once for the session's account now (learned from Gmail's refusals). */
    int maxInFlight(Session s) {
        return calls.maxInFlight(s.account());
    }

    /**
     * A session for one call (cheap: the transport is shared). Its token: the call's {@code access_token}, else the
     * configured one, else the stored sign-in, which refreshes itself before expiry.
     */
    Session sessionFor(String accessToken) {
        // who the credential is, when the connection asks: users.getProfile, Gmail's cheapest call (1 unit)
        return session(connection.sessionFor(accessToken, (google, deadline) -> profile(session(google), deadline).address()));
    }

    Session session(GoogleConnection.Session google) {
        return new Session(google, () -> new Gmail.Builder(connection.transport(), GsonFactory.getDefaultInstance(),
                connection.initializer(google)).setApplicationName(APPLICATION).setRootUrl(settings.rootUrl()).build());
    }

    /**
     * The signed-in account's address (users.getProfile), for `auth status`: who the tools act as.
     *
     * @throws ToolException when Gmail cannot be asked (not signed in, offline, refused)
     */
    public String emailAddress(Duration timeout) {
        Deadline deadline = Deadline.in(timeout);
        // set-up inside the deadline, as for the tools
        return FanOut.one(deadline, "gmail users.getProfile", () -> profile(sessionFor(null), deadline).address());
    }

    /** Who the session's account is and where its mailbox's history stands now. */
    record Profile(String address, BigInteger historyId) {
    }

    Profile profile(Session s, Deadline deadline) throws InterruptedException {
        var p = calls.one(s.account(), "gmail users.getProfile", PROFILE_UNITS, deadline,
                () -> s.gmail().users().getProfile("me").execute());
        connection.learned(s.google, p.getEmailAddress()); // later sessions of the credential need not ask
        return new Profile(p.getEmailAddress(), p.getHistoryId());
    }

    /** What a history.list read gave: the changes to apply, or why the index must rebuild from the list instead. */
    sealed interface HistoryRead permits Changes, TooOld, Unreplayable {
    }

    /**
     * What changed in the mailbox since a historyId: each changed message's labels as the latest record gives them,
     * the messages deleted, and the historyId the mailbox is at now.
     */
    record Changes(Map<String, List<String>> labels, Set<String> deleted, BigInteger historyId) implements HistoryRead {
    }

    /**
     * Gmail no longer has the history from that historyId (its 404: it keeps about a week), as every index meets after
     * a week away: the index rebuilds from the list.
     */
    record TooOld() implements HistoryRead {
    }

    /**
     * A history that cannot be replayed in this call (see {@link #HISTORY_PAGES}), which a sound server never sends:
     * the index rebuilds, as for {@link TooOld}.
     */
    record Unreplayable(String why) implements HistoryRead {
    }

    /**
     * The most history.list pages one list reads: 10 pages of 500 records, 5,000 changes (a week away from a busy
     * mailbox fits). Past that a rebuild from the list's own answer (its gets go at once) is sooner than more pages
     * asked one after another, and a server that hands out page after page cannot hold the list until its deadline.
     */
    static final int HISTORY_PAGES = 10;

    /**
     * users.history.list from {@code start}, every page, applied in order. A historyId too old for Gmail (kept about a
     * week) is its 404, {@link TooOld}. More than {@link #HISTORY_PAGES} pages, or a page token the server sends again,
     * is {@link Unreplayable}. For both the caller rebuilds from the list instead.
     */
    HistoryRead history(Session s, BigInteger start, Deadline deadline) throws InterruptedException {
        Map<String, List<String>> labels = new LinkedHashMap<>();
        Set<String> deleted = new LinkedHashSet<>();
        BigInteger now = start;
        PageTokens paging = new PageTokens("gmail users.history.list", HISTORY_PAGES);
        String page = null;
        do {
            String token = page;
            ListHistoryResponse r;
            try {
                r = calls.one(s.account(), "gmail users.history.list", HISTORY_UNITS, deadline,
                        () -> s.gmail().users().history().list("me").setStartHistoryId(start).setMaxResults(500L).setPageToken(token).execute());
            } catch (ToolException e) {
                if (e.kind() == ToolException.Kind.NOT_FOUND) {
                    return new TooOld();
                }
                throw e;
            }
            for (History h : r.getHistory() == null ? List.<History>of() : r.getHistory()) {
                for (var d : h.getMessagesDeleted() == null ? List.<HistoryMessageDeleted>of() : h.getMessagesDeleted()) {
                    deleted.add(d.getMessage().getId());
                    labels.remove(d.getMessage().getId());
                }
                for (var a : h.getLabelsAdded() == null ? List.<HistoryLabelAdded>of() : h.getLabelsAdded()) {
                    labels.put(a.getMessage().getId(), labelsOf(a.getMessage()));
                }
                for (var a : h.getLabelsRemoved() == null ? List.<HistoryLabelRemoved>of() : h.getLabelsRemoved()) {
                    labels.put(a.getMessage().getId(), labelsOf(a.getMessage()));
                }
            }
            if (r.getHistoryId() != null && r.getHistoryId().compareTo(now) > 0) {
                now = r.getHistoryId();
            }
            try {
                page = paging.next(r.getNextPageToken());
            } catch (ToolException endless) {
                return new Unreplayable(endless.getMessage());
            }
        } while (page != null);
        return new Changes(labels, deleted, now);
    }

    private static List<String> labelsOf(Message m) {
        return m.getLabelIds() == null ? List.of() : List.copyOf(m.getLabelIds());
    }

    /**
     * Admits a list of up to {@code max} emails fetched by {@code strategy}: the quota of messages.list and of a get
     * per email is promised to it, or it is refused at once (rate_limited, with when to try again) when the account's
     * quota could not serve it before its deadline ({@link GoogleCalls#admit}). An index that holds the emails spends
     * less; what is not spent is given back when the list ends.
     */
    GoogleCalls.Promise admitList(Session s, int max, Strategy strategy, Deadline deadline) {
        int rounds = strategy.resolve(max) == Strategy.SEQUENTIAL ? 1 + max : 2;
        return calls.admit(s.account(), LIST_UNITS + max * GET_UNITS, rounds, deadline,
                "gmail messages.list and " + max + " messages.get");
    }

    ListMessagesResponse list(Session s, String labelId, String query, int max, String pageToken, Deadline deadline)
            throws InterruptedException {
        return calls.one(s.account(), "gmail messages.list", LIST_UNITS, deadline, () -> {
            // the thread id too: an email that cannot be fetched is still answered with both ids
            StringBuilder url = new StringBuilder(settings.rootUrl()).append(MESSAGES_PATH).append("?maxResults=")
                    .append(max).append("&fields=").append(LIST_FIELDS_QUERY);
            if (labelId != null) {
                url.append("&labelIds=").append(GoogleConnection.encode(labelId));
            }
            if (query != null) {
                url.append("&q=").append(GoogleConnection.encode(query));
            }
            if (pageToken != null) {
                url.append("&pageToken=").append(GoogleConnection.encode(pageToken));
            }
            if (url.length() > MAX_URL_LENGTH) {
                // a long query: the Gmail client sends it as a POST with X-HTTP-Method-Override, as Google asks
                Gmail.Users.Messages.List request = s.gmail().users().messages().list("me").setMaxResults((long) max)
                        .setFields(LIST_FIELDS).setQ(query).setPageToken(pageToken);
                HttpResponse answer = request.setLabelIds(labelId == null ? null : List.of(labelId))
                        .executeUnparsed();
                try {
                    return GmailJson.list(answer.getContent(), max); // read here too: at most max ids kept
                } finally {
                    answer.disconnect();
                }
            }
            // at most max ids kept, whatever the answer holds: never more gets than asked for
            return connection.get(s.google, url.toString(), GoogleConnection.USER_AGENT, false,
                    BoundedBody.MAX_BYTES, in -> GmailJson.list(in, max));
        });
    }

    /**
     * Fetches listed messages the {@code strategy}'s way ({@code auto} resolved by the caller), one {@link Fetched}
     * per id in their order: found, vanished (404), or failed on its own (a 400, a 5xx that retries did not fix),
     * judged by {@link Fetched#ofFailure} alone so that every strategy gives the same answer. What fails the whole
     * call (sign-in, quota, the deadline) is thrown, cancelling what is in flight.
     */
    List<Fetched> fetch(Session s, Strategy strategy, List<String> ids, View view, Deadline deadline) throws InterruptedException {
        return strategy.fetch(ids, new Strategy.Source<String, Fetched>() {
            @Override
            public Fetched one(String id) throws InterruptedException {
                return fetchListed(s, id, view, deadline);
            }

            @Override
            public Map<String, Fetched> batch(List<String> chunk) throws InterruptedException {
                return fetchBatch(s, chunk, view, deadline);
            }
        }, new Strategy.Limits(maxInFlight(s), settings.batchSize()), deadline, "gmail messages.get x" + ids.size());
    }

    /**
     * Fetches one listed message: found, vanished (deleted since it was listed) or failed on its own; throws what
     * fails the whole call (see {@link Fetched#ofFailure}).
     */
    Fetched fetchListed(Session s, String id, View view, Deadline deadline) throws InterruptedException {
        try {
            return switch (getting(s, id, view, deadline)) {
                case Outcome.Ok<Message> ok -> view == View.SUMMARY ? Fetched.Found.decoding(ok.value())
                        : new Fetched.Found(ok.value());
                case Outcome.Failed<Message> failed -> Fetched.ofFailure(id, failed, retry().maxAttempts());
            };
        } catch (ToolException e) {
            return Fetched.ofFailure(id, new Outcome.Failed<>(e), retry().maxAttempts());
        }
    }

    Message get(Session s, String id, View view, Deadline deadline) throws InterruptedException {
        return getting(s, id, view, deadline).orThrow();
    }

    private Outcome<Message> getting(Session s, String id, View view, Deadline deadline) throws InterruptedException {
        // the bodies of a whole message may be large: gzip pays on a real network; a summary is a few hundred bytes
        String url = settings.rootUrl() + MESSAGES_PATH + "/" + GoogleConnection.encode(id) + "?format=full"
                + (view == View.SUMMARY ? "&fields=" + SUMMARY_FIELDS_QUERY : "");
        return calls.outcome(s.account(), "gmail messages.get " + id, GET_UNITS, deadline, () -> connection.get(s.google,
                url, GoogleConnection.USER_AGENT, view == View.DETAIL, limit(view), GmailJson::message));
    }

    /**
     * The most of a message's answer read: a summary's ({@link #MAX_SUMMARY_BYTES}), or a whole message's
     * ({@link dev.agenttools.google.BoundedBody#MAX_BYTES}).
     */
    static long limit(View view) {
        return view == View.SUMMARY ? MAX_SUMMARY_BYTES : BoundedBody.MAX_BYTES;
    }

    /**
     * Fetches listed messages in one batch request (parts refused for now are sent again in a later one), each
     * judged as a single get would be.
     */
    Map<String, Fetched> fetchBatch(Session s, List<String> ids, View view, Deadline deadline) throws InterruptedException {
        Map<String, Outcome<Message>> outcomes = calls.each(s.account(), "gmail batch messages.get x" + ids.size(),
                id -> "gmail messages.get " + id + " in a batch", GET_UNITS, ids, deadline, (pending, answers) -> {
                    BatchRequest batch = s.gmail().batch();
                    Map<String, Exception> unreadable = new HashMap<>();
                    for (String id : pending) {
                        HttpRequest part = getRequest(s.gmail(), id, view).buildHttpRequest();
                        part.setParser(GmailJson.messagesFirst(part.getParser(), limit(view), e -> unreadable.put(id, e)));
                        batch.queue(part, Message.class, GoogleJsonErrorContainer.class, answers.callback(id));
                    }
                    batch.execute();
                    // a part that could not be read failed as its single get would have (not retried: it would read the same)
                    unreadable.forEach(answers::failed);
                });
        Map<String, Fetched> out = new LinkedHashMap<>();
        outcomes.forEach((id, o) -> out.put(id, switch (o) {
            // decoded here as a single get's is: each chunk's thread decodes its own parts, the chunks in parallel
            case Outcome.Ok<Message> ok -> view == View.SUMMARY ? Fetched.Found.decoding(ok.value()) : new Fetched.Found(ok.value());
            case Outcome.Failed<Message> failed -> Fetched.ofFailure(id, failed, retry().maxAttempts());
        }));
        return out;
    }

    static Gmail.Users.Messages.Get getRequest(Gmail gmail, String id, View view) throws IOException {
        Gmail.Users.Messages.Get request = gmail.users().messages().get("me", id).setFormat("full");
        return view == View.SUMMARY ? request.setFields(SUMMARY_FIELDS) : request;
    }

    /** A label id for what the caller wrote: a system label id, a user label's id, or its name (any case). */
    String labelId(Session s, String label, Deadline deadline) throws InterruptedException {
        String upper = label.toUpperCase(Locale.ROOT);
        if (SYSTEM_LABELS.contains(upper)) {
            return upper;
        }
        AtomicReference<Listed> cache = labels.get(s.account());
        Listed last = cache.get();
        if (last == null || System.nanoTime() - last.fetchedNanos() > LABEL_CACHE_TTL.toNanos()) {
            List<Label> listed = calls.one(s.account(), "gmail labels.list", LABELS_UNITS, deadline, () -> {
                List<Label> l = s.gmail().users().labels().list("me").execute().getLabels();
                return l == null ? List.<Label>of() : l;
            });
            last = new Listed(listed, System.nanoTime());
            cache.set(last);
        }
        List<Label> known = last.labels();
        for (Label l : known) {
            if (l.getId().equals(label) || l.getName().equalsIgnoreCase(label)) {
                return l.getId();
            }
        }
        throw ToolException.invalidArgument("label '" + label + "' does not exist; labels: "
                + String.join(", ", known.stream().map(Label::getName).sorted().toList()));
    }

    /** Closes the mail index (when one was opened); the connection is the registry's to close. */
    @Override
    public void close() {
        index.close();
    }
}
