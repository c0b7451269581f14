package dev.agenttools.google;

import com.google.api.client.auth.oauth2.Credential;
import com.google.api.client.googleapis.GoogleUtils;
import com.google.api.client.googleapis.json.GoogleJsonError;
import com.google.api.client.googleapis.json.GoogleJsonErrorContainer;
import com.google.api.client.googleapis.json.GoogleJsonResponseException;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpHeaders;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpRequestInitializer;
import com.google.api.client.http.HttpResponseException;
import com.google.api.client.http.HttpTransport;
import com.google.api.client.json.gson.GsonFactory;
import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.ToolException;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the tools reach a Google API as a user: one shared HTTP/2 transport (made on first use, trusting an extra CA
 * certificate when configured), and per call a {@link Session} that acts as the call's token, the configured one, or
 * the stored sign-in (a refreshing credential shared by all calls, so that they share one refresh). Sessions give
 * what a Google client needs ({@link #initializer}) and a lean GET ({@link #get}) that answers like the client would.
 * Gmail and Calendar share one: the registry builds it once and closes it. Thread-safe; {@link #close} stops the
 * transport.
 *
 * <p>It also learns who each credential is ({@link Addresses}): once a credential's address is known, its sessions
 * act as the {@link Account} of that address, so a refreshed token is the same user to the pacer and the caches.
 * The address is asked in the background, never on a call's path: a session whose credential is not known yet acts
 * as the credential alone.
 */
public final class GoogleConnection implements AutoCloseable {
    /** Loads the stored sign-in with this transport; empty when there is none. */
    public interface SignInSource {
        /** @throws ToolException (UNAUTHENTICATED) when the stored sign-in cannot be read */
        Optional<Credential> load(HttpTransport transport);
    }

    /**
     * Asks the API who a session's credential is: the address of its account (Gmail's users.getProfile, Calendar's
     * primary calendar), within {@code deadline}. Run in the background; what it throws is ignored.
     */
    @FunctionalInterface
    public interface WhoIs {
        String address(Session s, Deadline deadline) throws Exception;
    }

    private final Path trustedCertificate;
    private final Addresses addresses;
    private final String configuredToken;
    private final SignInSource signInSource;
    private final String notSignedIn;
    private final PacingShare pacingShare;
    private final PacingStats pacingStats;
    /** Made on first use: TLS set-up costs ~0.2 s of start-up that tools.list and bad requests never need. */
    private volatile JdkHttpTransport transport;
    /** The stored sign-in, loaded on first need (null: not looked up yet). */
    private volatile Optional<Credential> signIn;

    /**
     * @param settings     the extra CA certificate to trust and the token for calls that bring none
     * @param signInSource where the stored sign-in comes from, or null for none
     * @param notSignedIn  the error when a call has no token and there is no stored sign-in (what to run)
     */
    public GoogleConnection(GoogleSettings settings, SignInSource signInSource, String notSignedIn) {
        this(settings.trustedCertificate(), settings.accessToken(), signInSource, notSignedIn);
    }

    /** @param share how many instances serve each account (the tools on this connection pace at their share) */
    public GoogleConnection(GoogleSettings settings, SignInSource signInSource, String notSignedIn, PacingShare share) {
        this(settings, signInSource, notSignedIn, share, PacingStats.NONE);
    }

    /** @param stats where the APIs' pacing on this connection is counted (for a service's metrics) */
    public GoogleConnection(GoogleSettings settings, SignInSource signInSource, String notSignedIn, PacingShare share,
                            PacingStats stats) {
        this(settings.trustedCertificate(), settings.accessToken(), signInSource, notSignedIn, share, stats);
    }

    /** How many instances serve each account: what the Google APIs' pacing on this connection divides by. */
    public PacingShare pacingShare() {
        return pacingShare;
    }

    /** Where the Google APIs' pacing on this connection is counted ({@link PacingStats#NONE} unless shown). */
    public PacingStats pacingStats() {
        return pacingStats;
    }

    /**
     * @param trustedCertificate an extra CA certificate (PEM) to trust, or null
     * @param configuredToken    the token to use when a call brings none, or null
     */
    GoogleConnection(Path trustedCertificate, String configuredToken, SignInSource signInSource, String notSignedIn) {
        this(trustedCertificate, configuredToken, signInSource, notSignedIn, PacingShare.ALONE, PacingStats.NONE);
    }

    /** @param addresses what is remembered of who each credential is (a test's, with other durations) */
    GoogleConnection(String configuredToken, Addresses addresses) {
        this(null, configuredToken, null, "not signed in", PacingShare.ALONE, PacingStats.NONE, addresses);
    }

    private GoogleConnection(Path trustedCertificate, String configuredToken, SignInSource signInSource, String notSignedIn,
                             PacingShare share, PacingStats stats) {
        this(trustedCertificate, configuredToken, signInSource, notSignedIn, share, stats, new Addresses());
    }

    private GoogleConnection(Path trustedCertificate, String configuredToken, SignInSource signInSource, String notSignedIn,
                             PacingShare share, PacingStats stats, Addresses addresses) {
        this.addresses = addresses;
        this.pacingShare = Objects.requireNonNull(share, "share");
        this.pacingStats = Objects.requireNonNull(stats, "stats");
        if (trustedCertificate != null && !Files.isReadable(trustedCertificate)) {
            throw new IllegalArgumentException("cannot read the certificate to trust: " + trustedCertificate);
        }
        this.trustedCertificate = trustedCertificate;
        this.configuredToken = configuredToken;
        this.signInSource = signInSource;
        this.notSignedIn = notSignedIn;
    }

    /**
     * One call's way to the API: the account it acts as and how its requests are authorized (a token, or the stored
     * sign-in's credential, which refreshes itself).
     */
    public static final class Session {
        private final Account account;
        private final String address;
        private final String credentialKey;
        /** "Bearer TOKEN" for a call made with a token; null for the stored sign-in. */
        private final String bearer;
        /** The stored sign-in; null for a call made with a token. */
        private final Credential credential;

        private Session(Account account, String address, String credentialKey, String bearer, Credential credential) {
            this.account = account;
            this.address = address;
            this.credentialKey = credentialKey;
            this.bearer = bearer;
            this.credential = credential;
        }

        /** The account's address once the credential's is known; until then the credential alone ({@link Account}). */
        public Account account() {
            return account;
        }

        /** The address of the account the credential acts as (as Google gave it), when it was known as the session opened. */
        public Optional<String> address() {
            return Optional.ofNullable(address);
        }

        /**
         * The credential, as a key for what is kept per account across processes (never the secret itself): a token's
         * digest, or the stored sign-in's refresh token's digest, so that signing in again as someone else is a new key.
         */
        public String credentialKey() {
            return credentialKey;
        }
    }

    /** The shared transport, made on first use. */
    public HttpTransport transport() {
        return jdkTransport();
    }

    private JdkHttpTransport jdkTransport() {
        JdkHttpTransport t = transport;
        if (t == null) {
            synchronized (this) {
                t = transport;
                if (t == null) {
                    t = JdkHttpTransport.http2(GoogleCalls.CONNECT_TIMEOUT,
                            trustedCertificate == null ? null : TrustedCertificate.context(trustedCertificate));
                    transport = t;
                }
            }
        }
        return t;
    }

    /**
     * A session for one call (cheap: the transport is shared). Its token: the call's {@code accessToken}, else the
     * configured one, else the stored sign-in.
     *
     * @throws ToolException UNAUTHENTICATED without a token or a stored sign-in
     */
    public Session sessionFor(String accessToken) {
        return sessionFor(accessToken, null);
    }

    /**
     * ... and, when the credential's address is not known yet, may ask {@code whoIs} in the background (see
     * {@link Addresses} for when), so that later sessions of it act as its address's account. Never waits for it.
     *
     * @param whoIs how to ask who the credential is, or null not to ask
     */
    public Session sessionFor(String accessToken, WhoIs whoIs) {
        String token = accessToken != null && !accessToken.isBlank() ? accessToken : configuredToken;
        transport(); // made here, inside the call's deadline, rather than on first request
        Account alone;
        String key;
        Credential credential = null;
        if (token != null && !token.isBlank()) {
            alone = Account.ofToken(token);
            key = alone.id();
        } else {
            credential = storedSignIn().orElseThrow(() -> new ToolException(ToolException.Kind.UNAUTHENTICATED, notSignedIn));
            alone = Account.STORED_SIGN_IN;
            String refresh = credential.getRefreshToken();
            key = refresh == null ? alone.id() : "signin-" + Account.digest(refresh);
        }
        Addresses.Seen seen = addresses.opened(key, whoIs != null);
        Session s = new Session(seen.address() == null ? alone : Account.ofAddress(seen.address(), alone), seen.address(), key,
                credential == null ? "Bearer " + token : null, credential);
        if (seen.ask()) {
            lookUp(s, whoIs);
        }
        return s;
    }

    /**
     * The address of the account the credential of a call with {@code accessToken} acts as (see {@link #sessionFor}):
     * known already when Google said it lately (a lookup or an answer, in the last {@link Addresses#CONFIRMED_FOR}), else
     * asked now by {@code whoIs} within {@code deadline} and remembered for later sessions of the credential. What the
     * Habit tools take for the caller's identity: a credential revoked since is refused here within that time.
     *
     * @throws ToolException        UNAUTHENTICATED without a credential; what asking met (translated by the API's calls)
     * @throws InterruptedException when the call is cancelled
     */
    public String addressOf(String accessToken, WhoIs whoIs, Deadline deadline) throws InterruptedException {
        Session s = sessionFor(accessToken);
        Optional<String> confirmed = addresses.confirmed(s.credentialKey);
        if (confirmed.isPresent()) {
            return confirmed.get();
        }
        String address;
        try {
            address = whoIs.address(s, deadline);
        } catch (ToolException | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new ToolException(ToolException.Kind.UPSTREAM, "cannot tell which Google account the credential is: " + e.getMessage(), e);
        }
        if (address == null || address.isBlank()) {
            throw new ToolException(ToolException.Kind.UPSTREAM, "Google gave no address for the credential's account");
        }
        addresses.learned(s.credentialKey, address);
        return address;
    }

    /**
     * The session's credential is the account with this address, as an answer made for another reason said (Gmail's
     * users.getProfile beside a list): later sessions need not ask.
     */
    public void learned(Session s, String address) {
        addresses.learned(s.credentialKey, address);
    }

    /** Asks who the session's credential is on a virtual thread of its own, bounded; a failure is left for later. */
    private void lookUp(Session s, WhoIs whoIs) {
        if (closed) {
            return;
        }
        Thread lookup = Thread.ofVirtual().name("agent-tools-who-is").unstarted(() -> {
            String address = null;
            try {
                address = whoIs.address(s, Deadline.in(Addresses.LOOKUP_TIMEOUT));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // offline, refused, closed: the calls go on as the credential alone, and a later session asks again
            } finally {
                addresses.answered(s.credentialKey, address);
                lookups.remove(Thread.currentThread());
            }
        });
        lookups.add(lookup);
        lookup.start();
    }

    /** What a Google client built for the session sets on each request: its authorization and the call's timeouts. */
    public HttpRequestInitializer initializer(Session s) {
        if (s.credential == null) {
            String bearer = s.bearer;
            return request -> {
                request.getHeaders().setAuthorization(bearer);
                GoogleCalls.limit(request);
            };
        }
        Credential credential = s.credential;
        return request -> {
            credential.initialize(request); // Authorization header, refresh before expiry, refresh and retry on 401
            GoogleCalls.limit(request);
        };
    }

    /** What the Google clients send as User-Agent, so that Google sees one client whichever path a call takes. */
    public static final String USER_AGENT = "agent-tools Google-API-Java-Client/" + GoogleUtils.VERSION
            + " " + HttpRequest.USER_AGENT_SUFFIX;
    /** A path segment or query value for a lean GET, percent-encoded as the Google clients send it (a space as %20). */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The longest URL Google's clients send as a GET (their MethodOverride's limit); longer goes as a POST. */
    public static final int MAX_URL_LENGTH = 2048;

    /** Reads a 2xx answer's body, streamed and bounded ({@link BoundedBody}); may stop before its end. */
    @FunctionalInterface
    public interface BodyReader<T> {
        T read(InputStream body) throws IOException;
    }

    /**
     * A GET made as the session's account on the shared transport, without a Google client's request objects (their
     * URI templates, headers and reflective parsing cost more than the exchange until the JIT has compiled them), its
     * body handed to {@code reader} as it arrives: at most {@code limit} bytes, as sent and once gzip is undone, then
     * {@link UnreadableAnswer}. The answer is judged as the client would: a status other than 2xx becomes the
     * {@link GoogleJsonResponseException} the client would have thrown, with Google's error details and Retry-After,
     * so that {@link GoogleCalls} classifies and retries both paths alike. A 401 on the stored sign-in refreshes it
     * for the next call.
     */
    public <T> T get(Session s, String url, String userAgent, boolean gzip, long limit, BodyReader<T> reader) throws IOException {
        String authorization = authorization(s, url);
        try (JdkHttpTransport.Answer answer = jdkTransport().get(url, authorization, userAgent, gzip, GoogleCalls.requestTimeout(), limit)) {
            if (answer.status() / 100 == 2) {
                return reader.read(answer.body());
            }
            if (answer.status() == 401 && s.credential != null) {
                refused(s.credential, authorization);
            }
            HttpHeaders headers = new HttpHeaders();
            answer.headers().firstValue("Retry-After").ifPresent(headers::setRetryAfter);
            answer.headers().firstValue("Content-Type").ifPresent(headers::setContentType);
            GoogleJsonError details = null;
            if (headers.getContentType() != null && headers.getContentType().startsWith("application/json")) {
                try {
                    details = GsonFactory.getDefaultInstance().fromString(new String(answer.body().readAllBytes(),
                            StandardCharsets.UTF_8), GoogleJsonErrorContainer.class).getError();
                } catch (IOException | RuntimeException e) {
                    // not Google's error JSON: the status alone tells what happened
                }
            }
            String message = answer.status() + (details != null && details.getMessage() != null ? " " + details.getMessage() : "");
            throw new GoogleJsonResponseException(new HttpResponseException.Builder(answer.status(), null, headers)
                    .setMessage(message), details);
        }
    }

    /** How long an early connection may take before it is given up (the first call then opens its own). */
    private static final Duration PRECONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long after start the early connection is opened, unless a call came first. */
    private static final Duration PRECONNECT_DELAY = Duration.ofMillis(250);

    /**
     * Opens the connections to these roots' servers in the background (one per server, see
     * {@link JdkHttpTransport#preconnect}), for a process that serves many calls; returns at once.
     */
    public void preconnect(Collection<String> rootUrls) {
        Set<URI> servers = new LinkedHashSet<>();
        for (String root : rootUrls) {
            URI u = URI.create(root);
            servers.add(URI.create(u.getScheme() + "://" + u.getRawAuthority() + "/"));
        }
        for (URI server : servers) {
            Thread.ofVirtual().name("agent-tools-preconnect").start(() -> {
                try {
                    // a call that comes at once (the resident server started for it) opens its own connection sooner
                    // than it would by waiting for this one: it comes first, and this stands down
                    Thread.sleep(PRECONNECT_DELAY);
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed) {
                    jdkTransport().preconnect(server.toString(), PRECONNECT_TIMEOUT);
                }
            });
        }
    }

    /** Who-is lookups still running (at most one per credential at a time, each bounded by its own timeout). */
    private final Set<Thread> lookups = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Stops the transport (when one was made), its threads and any who-is lookup; calls still running fail. */
    @Override
    public void close() {
        closed = true;
        lookups.forEach(Thread::interrupt); // a lookup still asking: it would only fail on the stopped transport
        JdkHttpTransport t = transport;
        if (t != null) {
            t.shutdown();
        }
    }

    private Optional<Credential> storedSignIn() {
        Optional<Credential> c = signIn;
        if (c == null) {
            synchronized (this) {
                c = signIn;
                if (c == null) {
                    c = signInSource == null ? Optional.empty() : signInSource.load(transport());
                    signIn = c;
                }
            }
        }
        return c;
    }

    /**
     * The Authorization header for a request of the session: its token, or the stored sign-in's access token, which
     * the credential refreshes first when it is missing or due within a minute (its {@code intercept}, under its own
     * lock, so that concurrent calls share one refresh).
     */
    private String authorization(Session s, String url) throws IOException {
        if (s.credential == null) {
            return s.bearer;
        }
        HttpRequest carrier = transport().createRequestFactory()
                .buildGetRequest(new GenericUrl(url));
        s.credential.intercept(carrier);
        return carrier.getHeaders().getAuthorization();
    }

    /**
     * The API refused the stored sign-in's access token {@code sent}: refresh it for the next call unless another
     * call has already, as the credential does for a Google client. The call itself still fails with the 401 (the
     * client does not retry it either: its retries are off, ours decide). A refresh Google refuses is the 401's to
     * report.
     */
    private static void refused(Credential credential, String sent) {
        try {
            if (sent != null && sent.equals("Bearer " + credential.getAccessToken())) {
                credential.refreshToken();
            }
        } catch (IOException e) {
            // the sign-in was revoked or has expired: the 401 says so, with what to run
        }
    }
}
