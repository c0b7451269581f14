package dev.agenttools.emulator;

import dev.agenttools.emulator.api.Counters;
import dev.agenttools.emulator.api.Faults;
import dev.agenttools.emulator.calendar.CalendarSet;
import dev.agenttools.emulator.gmail.Mailbox;
import dev.agenttools.emulator.gmail.MailboxSource;
import dev.agenttools.emulator.http.CallGate;
import dev.agenttools.emulator.http.HttpFront;
import dev.agenttools.emulator.http.JsonErrorHandler;
import dev.agenttools.emulator.http.LatencyModel;
import dev.agenttools.emulator.http.RequestBody;
import dev.agenttools.emulator.http.Users;
import dev.agenttools.emulator.oauth.OAuthServer;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.compression.gzip.GzipCompression;
import org.eclipse.jetty.compression.server.CompressionConfig;
import org.eclipse.jetty.compression.server.CompressionHandler;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.Executors;

/**
 * A local Gmail API v1 server: the real REST surface over a seeded or loaded mailbox, with latency, handshake,
 * quota, concurrency and fault models. Official clients work against it by changing their root URL.
 *
 * <p>Many users: with {@code users(N)} it serves N users, each with its own mailbox and calendars (seeded at the
 * user's first call), quota, concurrency limit and counters; {@link #tokenFor} gives a token of each, and the emulated
 * OAuth endpoint signs in the user its {@code login_hint} names.
 *
 * <p>Lifecycle: {@link #start} binds and serves; {@link #rootUri} is the root URL to give a client;
 * {@link #close} stops it. Thread-safe.
 */
public final class Emulator implements AutoCloseable {
    private static final long IDLE_TIMEOUT_MS = 120_000;
    private static final int MAX_CONCURRENT_STREAMS = 100;

    private final EmulatorConfig config;
    private final Server server;
    private final ServerConnector connector;
    private final Mailbox mailbox;
    private final Counters counters;
    private final Users users;
    private final Path certificate;
    private final OAuthServer oauth;
    private final Faults faults;
    private final CalendarSet calendars;

    private Emulator(EmulatorConfig config, Mailbox mailbox) throws Exception {
        this.config = config;
        this.mailbox = mailbox;
        this.counters = new Counters();
        this.faults = new Faults(config.seed(), config.failRate(), config.failStatuses(), config.slowRate(), config.slowBy(),
                config.vanishRate());
        Clock clock = Clock.systemUTC();
        this.calendars = CalendarSet.load(config.calendars(), mailbox.email, clock);
        this.users = new Users(mailbox.email, config.users(), config.token(), config.quotaPerMinute(), config.burst(),
                config.calendarQuotaPerMinute(), config.maxConcurrent(), new Users.Seeder() {
                    @Override
                    public Mailbox mailbox(int number, String address) {
                        return number == 1 ? mailbox
                                : MailboxSource.seeded(address, number, userSeed(config.seed(), number),
                                config.seedMessages(), config.anchor());
                    }

                    @Override
                    public CalendarSet calendars(int number, String address) {
                        return number == 1 ? calendars : CalendarSet.seeded(address, number, clock);
                    }
                }, faults, counters, clock);
        users.mailbox(mailbox.email); // user 1 is served from the start, as before there were users
        // With one user the hint is not checked (as before users); with more it must name one of them.
        this.oauth = new OAuthServer(config.tokenLifetime(), mailbox.email, config.users() == 1 ? hint -> mailbox.email
                : hint -> users.number(hint) == 0 ? null : users.address(users.number(hint)));
        CallGate gate = new CallGate(users, faults, counters, oauth);
        LatencyModel latency = new LatencyModel(config.seed(), config.latency(), config.jitter(), config.handshake(),
                config.batchPartCost());
        HttpFront front = new HttpFront(gate, latency, faults, counters, users, oauth,
                new RequestBody(config.maxBody(), config.maxInflatedBody()), this::counters);

        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setName("gmail-emulator");
        pool.setDaemon(true);
        // Each call sleeps for the modelled latency: on virtual threads that costs no platform thread.
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(true);
        http.setRequestHeaderSize(config.maxHeaderSize()); // past it Jetty answers 414 (URI) or 431 (headers)
        HttpConnectionFactory http11 = new HttpConnectionFactory(http);
        if (config.tls()) {
            SelfSignedCertificate cert = SelfSignedCertificate.create(config.host());
            certificate = cert.writePem(config.certFile());
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false);
            http.addCustomizer(secure);
            HTTP2ServerConnectionFactory h2 = new HTTP2ServerConnectionFactory(http);
            h2.setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS);
            ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory();
            alpn.setDefaultProtocol(http11.getProtocol());
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setKeyStore(cert.keyStore());
            ssl.setKeyStorePassword(SelfSignedCertificate.PASSWORD);
            ssl.setSniRequired(false);
            connector = new ServerConnector(server, new SslConnectionFactory(ssl, alpn.getProtocol()), alpn, h2, http11);
        } else {
            certificate = null;
            HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(http);
            h2c.setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS);
            connector = new ServerConnector(server, http11, h2c);
        }
        connector.setHost(config.host());
        connector.setPort(config.port());
        connector.setIdleTimeout(IDLE_TIMEOUT_MS);
        connector.addBean(new ConnectionWatch(counters, front));
        server.addConnector(connector);
        // Gzip responses for clients that accept it (GET and POST, 32 bytes or more, as Jetty's defaults have it).
        // Official clients gzip their request bodies too: RequestBody inflates them, counting both sizes against the
        // limits, so this handler never decompresses a request.
        CompressionHandler compression = new CompressionHandler(front);
        compression.putCompression(new GzipCompression());
        compression.putConfiguration("/", CompressionConfig.builder().defaults().decompressExcludePath("/*").build());
        server.setHandler(compression);
        server.setErrorHandler(new JsonErrorHandler(config.maxHeaderSize())); // Jetty's own errors in Google's JSON, never an HTML page
        server.start();
    }

    /** Loads the configured mailbox and starts serving. */
    public static Emulator start(EmulatorConfig config) {
        return start(config, MailboxSource.load(config.mailbox(), config.userEmail(), config.seed(), config.seedMessages(),
                config.anchor(), System.err::println));
    }

    /** Starts serving the given mailbox (the tests' seeded mailboxes, generated and parsed once per JVM). */
    static Emulator start(EmulatorConfig config, Mailbox mailbox) {
        try {
            return new Emulator(config, mailbox);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("emulator could not start on " + config.host() + ":" + config.port()
                    + ": " + e.getMessage(), e);
        }
    }

    /** The root URL to give a client, such as {@code http://127.0.0.1:41234/}. */
    public URI rootUri() {
        return URI.create((config.tls() ? "https" : "http") + "://" + config.host() + ":" + connector.getLocalPort() + "/");
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** The self-signed certificate (PEM) clients must trust, or null without TLS. */
    public Path certificate() {
        return certificate;
    }

    public EmulatorCounters counters() {
        Map<String, EmulatorCounters.User> perUser = new LinkedHashMap<>();
        for (Users.Snapshot u : users.snapshot()) {
            perUser.put(u.address(), new EmulatorCounters.User(u.apiCalls(), u.quotaRejections(), u.concurrencyRejections(),
                    u.tooManyRequests(), u.peakInFlight()));
        }
        return new EmulatorCounters(counters.httpRequests.sum(), counters.apiCalls.sum(), counters.batchRequests.sum(),
                counters.connectionsOpened.sum(), counters.handshakes.sum(), counters.quotaRejections.sum(),
                counters.concurrencyRejections.sum(), counters.faultsInjected.sum(), counters.authFailures.sum(),
                counters.messagesVanished.sum(), users.peak(), perUser);
    }

    /**
     * A bearer token of user {@code address} that needs no sign-in and never expires: {@code emulator-user-<n>} for
     * user n ({@code emulator-user-1} for user 1, or the configured {@code token} when there is one).
     *
     * @throws IllegalArgumentException when {@code address} is not one of this emulator's users
     */
    public String tokenFor(String address) {
        return users.tokenFor(address);
    }

    /** User {@code number}'s address, 1..{@code users}: user 1 is the configured user, user n is {@code usern@example.com}. */
    public String userAddress(int number) {
        return users.address(number);
    }

    /** How many users have had their mailbox seeded (user 1 always; others at their first call). */
    public int usersSeeded() {
        return users.seeded();
    }

    /**
     * Each further user's seed: the configured one and the user's number, mixed (SplittableRandom's own finalizer), so
     * users' mailboxes stay the same from run to run and share nothing. A plain step of SplittableRandom's gamma, as
     * before, gave user n user 1's stream shifted by n - 1 draws: most users' mail was another's, dates and all.
     */
    static long userSeed(long seed, int number) {
        long z = seed + 0x9E3779B97F4A7C15L * number;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Refresh-token grants the OAuth token endpoint has answered (to check that concurrent calls share one). */
    public long tokenRefreshes() {
        return oauth.refreshGrants.sum();
    }

    /**
     * The user takes the app's access away (Google's "remove access" in the account's settings): every refresh token
     * issued for {@code address}, and every access token issued from one, stops working; its next refresh is
     * {@code invalid_grant}. Fixed tokens ({@link #tokenFor}) are not touched.
     */
    public void revokeAccess(String address) {
        oauth.revokeUser(address);
    }

    /** Authorization-code grants the OAuth token endpoint has answered. */
    public long signIns() {
        return oauth.codeGrants.sum();
    }

    /** How many messages and threads the mailbox holds (for the start-up line). */
    public String mailboxSummary() {
        return mailbox.size() + " messages in " + mailbox.threadCount() + " threads and " + calendars.size()
                + " calendars for " + mailbox.email + (config.users() == 1 ? ""
                : "; " + (config.users() - 1) + " more user" + (config.users() == 2 ? " " : "s ") + users.address(2)
                + (config.users() > 2 ? ".." + users.address(config.users()) : "") + ", each with "
                + config.seedMessages() + " seeded messages at its first call");
    }

    Mailbox mailbox() {
        return mailbox;
    }

    /** User {@code address}'s mailbox, seeded now if it was not yet. */
    Mailbox mailbox(String address) {
        return users.mailbox(address);
    }

    /** Test seam: every messages.get of message {@code hexId} fails with {@code status} (400, 401, 403, 429 or 5xx). */
    void failGets(String hexId, int status) {
        faults.failGets(hexId, status);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("emulator did not stop cleanly: " + e.getMessage(), e);
        }
    }

    /** Counts TCP connections and tells the front when one closes (so its next use pays a new handshake). */
    private static final class ConnectionWatch implements Connection.Listener {
        private final Counters counters;
        private final HttpFront front;
        private final Set<EndPoint> seen = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

        ConnectionWatch(Counters counters, HttpFront front) {
            this.counters = counters;
            this.front = front;
        }

        @Override
        public void onOpened(Connection connection) {
            // Only the TCP-level endpoint: TLS and h2c upgrades put further connections on the same socket.
            if (connection.getEndPoint() instanceof SocketChannelEndPoint tcp && seen.add(tcp)) {
                counters.connectionsOpened.increment();
            }
        }

        @Override
        public void onClosed(Connection connection) {
            EndPoint endPoint = connection.getEndPoint();
            if (endPoint instanceof SocketChannelEndPoint && !endPoint.isOpen()) {
                front.connectionClosed(endPoint.getRemoteSocketAddress());
            }
        }
    }
}
