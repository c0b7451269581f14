package dev.agenttools.gmail;

import com.google.api.client.http.HttpTransport;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.gmail.Gmail;
import com.google.api.services.gmail.model.Label;
import com.google.api.services.gmail.model.ListMessagesResponse;
import com.google.api.services.gmail.model.Message;
import dev.agenttools.google.Deadline;
import dev.agenttools.google.JdkHttpTransport;
import dev.agenttools.google.QuotaPacer;
import dev.agenttools.google.Retry;
import dev.agenttools.tool.ToolException;
import dev.agenttools.auth.AuthException;
import dev.agenttools.auth.AuthSettings;
import dev.agenttools.auth.SignIn;
import com.google.api.client.auth.oauth2.Credential;
import java.util.Optional;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Gmail calls the tools make, each paced, retried and bounded by the call's deadline, over one shared
 * HTTP/2 transport. One instance per Gmail root URL; thread-safe.
 */
public final class GmailService {
    /** Quota units of the calls we make (Gmail's published costs). */
    static final int LIST_UNITS = 5;
    static final int GET_UNITS = 5;
    static final int LABELS_UNITS = 1;
    static final Set<String> SYSTEM_LABELS = Set.of("INBOX", "SPAM", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SENT",
            "DRAFT", "CHAT", "CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS", "CATEGORY_UPDATES",
            "CATEGORY_FORUMS");
    /**
     * What a list needs of each message: headers, labels, snippet and the part tree's file names (for
     * has_attachments), but no body data, so a 2 MB message costs a few hundred bytes.
     */
    static final String SUMMARY_FIELDS = "id,threadId,labelIds,snippet,internalDate,payload(mimeType,filename,headers,"
            + "parts(mimeType,filename,parts(mimeType,filename,parts(mimeType,filename,parts(mimeType,filename)))))";
    private static final Duration LABEL_CACHE_TTL = Duration.ofMinutes(5);

    /** How much of a message to fetch. */
    enum View { SUMMARY, DETAIL }

    private final GmailSettings settings;
    /** Made on first use: TLS set-up costs ~0.2 s of start-up that tools.list and bad requests never need. */
    private volatile HttpTransport transport;
    private final QuotaPacer pacer;
    private final Retry retry;
    private final ConcurrentHashMap<String, CachedLabels> labelsByToken = new ConcurrentHashMap<>();
    private final AuthSettings auth;
    /** The stored sign-in, loaded on first need (null: not looked up yet). */
    private volatile Optional<Credential> signIn;

    private record CachedLabels(List<Label> labels, long fetchedNanos) {
    }

    public GmailService(GmailSettings settings) {
        this(settings, Retry.DEFAULT, null);
    }

    /** @param auth where the stored sign-in lives, used when a call brings no token (null: none) */
    public GmailService(GmailSettings settings, AuthSettings auth) {
        this(settings, Retry.DEFAULT, auth);
    }

    GmailService(GmailSettings settings, Retry retry) {
        this(settings, retry, null);
    }

    GmailService(GmailSettings settings, Retry retry, AuthSettings auth) {
        this.auth = auth;
        this.settings = settings;
        if (settings.trustedCertificate() != null && !Files.isReadable(settings.trustedCertificate())) {
            throw new IllegalArgumentException("cannot read the certificate to trust: " + settings.trustedCertificate());
        }
        this.pacer = new QuotaPacer(settings.quotaPerMinute(), settings.burst(), settings.maxInFlight());
        this.retry = retry;
    }

    private static HttpClient httpClient(GmailSettings settings) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER);
        if (settings.trustedCertificate() != null) {
            b.sslContext(trusting(settings));
        }
        return b.build();
    }

    private static SSLContext trusting(GmailSettings settings) {
        try (InputStream in = Files.newInputStream(settings.trustedCertificate())) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("extra", CertificateFactory.getInstance("X.509").generateCertificate(in));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot trust the certificate " + settings.trustedCertificate() + ": " + e.getMessage(), e);
        }
    }

    public GmailSettings settings() {
        return settings;
    }

    QuotaPacer pacer() {
        return pacer;
    }

    Retry retry() {
        return retry;
    }

    private HttpTransport transport() {
        HttpTransport t = transport;
        if (t == null) {
            synchronized (this) {
                t = transport;
                if (t == null) {
                    t = new JdkHttpTransport(httpClient(settings));
                    transport = t;
                }
            }
        }
        return t;
    }

    /**
     * A client for one call (cheap: the transport is shared). Its token: the call's {@code access_token}, else the
     * configured one, else the stored sign-in, which refreshes itself before expiry; concurrent calls share that
     * one credential, so they share one refresh.
     */
    Gmail client(String accessToken) {
        String token = accessToken != null && !accessToken.isBlank() ? accessToken : settings.accessToken();
        if (token != null && !token.isBlank()) {
            return new Gmail.Builder(transport(), GsonFactory.getDefaultInstance(), request -> {
                request.getHeaders().setAuthorization("Bearer " + token);
                limits(request);
            }).setApplicationName("agent-tools").setRootUrl(settings.rootUrl()).build();
        }
        Credential credential = storedSignIn().orElseThrow(() -> new ToolException(ToolException.Kind.UNAUTHENTICATED,
                "not signed in to Gmail: run 'agent-tools auth login --client-secrets FILE' once, or pass access_token"));
        return new Gmail.Builder(transport(), GsonFactory.getDefaultInstance(), request -> {
            credential.initialize(request); // Authorization header, refresh before expiry, refresh and retry on 401
            limits(request);
        }).setApplicationName("agent-tools").setRootUrl(settings.rootUrl()).build();
    }

    private static void limits(com.google.api.client.http.HttpRequest request) {
        request.setConnectTimeout(10_000);
        request.setReadTimeout(60_000);
        request.setNumberOfRetries(0); // retries are ours: paced, jittered and deadline-bound
    }

    private Optional<Credential> storedSignIn() {
        Optional<Credential> c = signIn;
        if (c == null) {
            synchronized (this) {
                c = signIn;
                if (c == null) {
                    try {
                        c = auth == null ? Optional.empty() : SignIn.credential(auth, transport());
                    } catch (AuthException e) {
                        throw new ToolException(ToolException.Kind.UNAUTHENTICATED, e.getMessage(), e);
                    }
                    signIn = c;
                }
            }
        }
        return c;
    }

    /**
     * The signed-in account's address (users.getProfile), for `auth status`: who the tools act as.
     *
     * @throws ToolException when Gmail cannot be asked (not signed in, offline, refused)
     */
    public String emailAddress(Duration timeout) {
        Deadline deadline = Deadline.in(timeout);
        return dev.agenttools.google.FanOut.one(deadline, "gmail users.getProfile", () -> {
            Gmail gmail = client(null); // set-up inside the deadline, as for the tools
            return retry.run("gmail users.getProfile", deadline, () -> {
                try (QuotaPacer.Permit p = pacer.acquire(LABELS_UNITS, 1, deadline, "gmail users.getProfile")) {
                    return gmail.users().getProfile("me").execute().getEmailAddress();
                }
            });
        });
    }

    ListMessagesResponse list(Gmail gmail, String labelId, String query, int max, String pageToken, Deadline deadline)
            throws InterruptedException {
        String what = "gmail messages.list";
        return retry.run(what, deadline, () -> {
            try (QuotaPacer.Permit p = pacer.acquire(LIST_UNITS, 1, deadline, what)) {
                Gmail.Users.Messages.List request = gmail.users().messages().list("me").setMaxResults((long) max)
                        // the thread id too: an email that cannot be fetched is still answered with both ids
                        .setFields("messages(id,threadId),nextPageToken");
                if (labelId != null) {
                    request.setLabelIds(List.of(labelId));
                }
                if (query != null) {
                    request.setQ(query);
                }
                if (pageToken != null) {
                    request.setPageToken(pageToken);
                }
                return request.execute();
            }
        });
    }

    /**
     * Fetches one listed message: found, vanished (deleted since it was listed) or failed on its own; throws what
     * fails the whole call (see {@link Fetched#ofFailure}).
     */
    Fetched fetchListed(Gmail gmail, String id, View view, Deadline deadline) throws InterruptedException {
        try {
            return new Fetched.Found(get(gmail, id, view, deadline));
        } catch (ToolException e) {
            return Fetched.ofFailure(id, e, retry.maxAttempts());
        }
    }

    Message get(Gmail gmail, String id, View view, Deadline deadline) throws InterruptedException {
        String what = "gmail messages.get " + id;
        return retry.run(what, deadline, () -> {
            try (QuotaPacer.Permit p = pacer.acquire(GET_UNITS, 1, deadline, what)) {
                return getRequest(gmail, id, view).execute();
            }
        });
    }

    static Gmail.Users.Messages.Get getRequest(Gmail gmail, String id, View view) throws IOException {
        Gmail.Users.Messages.Get request = gmail.users().messages().get("me", id).setFormat("full");
        return view == View.SUMMARY ? request.setFields(SUMMARY_FIELDS) : request;
    }

    /** A label id for what the caller wrote: a system label id, a user label's id, or its name (any case). */
    String labelId(Gmail gmail, String accessToken, String label, Deadline deadline) throws InterruptedException {
        String upper = label.toUpperCase(Locale.ROOT);
        if (SYSTEM_LABELS.contains(upper)) {
            return upper;
        }
        String key = accessToken == null ? "" : Integer.toHexString(accessToken.hashCode());
        CachedLabels cached = labelsByToken.get(key);
        if (cached == null || System.nanoTime() - cached.fetchedNanos() > LABEL_CACHE_TTL.toNanos()) {
            String what = "gmail labels.list";
            List<Label> labels = retry.run(what, deadline, () -> {
                try (QuotaPacer.Permit p = pacer.acquire(LABELS_UNITS, 1, deadline, what)) {
                    List<Label> l = gmail.users().labels().list("me").execute().getLabels();
                    return l == null ? List.<Label>of() : l;
                }
            });
            cached = new CachedLabels(labels, System.nanoTime());
            labelsByToken.put(key, cached);
        }
        for (Label l : cached.labels()) {
            if (l.getId().equals(label) || l.getName().equalsIgnoreCase(label)) {
                return l.getId();
            }
        }
        throw ToolException.invalidArgument("label '" + label + "' does not exist; labels: "
                + String.join(", ", cached.labels().stream().map(Label::getName).sorted().toList()));
    }
}
