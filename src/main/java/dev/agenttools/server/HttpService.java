package dev.agenttools.server;

import dev.agenttools.google.PacingStats;
import dev.agenttools.mcp.McpCaller;
import dev.agenttools.mcp.McpHttpEndpoint;
import dev.agenttools.server.oauth.AuthorizationServer;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.server.oauth.RateLimiter;
import dev.agenttools.server.oauth.TrustedProxies;
import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.CallOutcome;
import dev.agenttools.tool.Diagnostics;
import dev.agenttools.tool.InternalErrors;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code agent-tools server}: the tools over HTTP on Jetty (HTTP/1.1 and HTTP/2: cleartext, or TLS with ALPN). The JSON tool protocol at
 * {@code POST /v1/call}, MCP Streamable HTTP at {@code /mcp} (stateless), {@code /healthz}, {@code /readyz},
 * {@code /metrics}. Handlers run on virtual threads; a stop stops accepting and lets the calls in flight finish within
 * the drain bound. Public only for the command line (internal).
 */
public final class HttpService implements AutoCloseable {
    /**
     * @param host           the address to listen on (127.0.0.1 by default: exposing it is a decision)
     * @param port           0: any free port
     * @param maxInFlight    calls running at once, across both endpoints
     * @param maxQueued      calls waiting for a slot; beyond them 503
     * @param maxBodyBytes   the largest request body
     * @param drain          how long a stop waits for calls in flight
     * @param keysFile       the file of service key hashes (null: none)
     * @param keyHashes      hashes given directly, comma-separated (null: none)
     * @param allowedOrigins browser origins allowed to reach /mcp (none by default)
     * @param upstreams      the Google API roots /readyz checks
     * @param tls            TLS on the server itself (null: plain HTTP)
     * @param oauth          MCP authorization: /mcp takes the server's own OAuth tokens and the server signs users in
     *                       with Google (null: /mcp takes service keys and the user's Google token per request)
     * @param limits         what bounds each caller and connection (rates, connections, header and idle timeouts)
     */
    public record Options(String host, int port, int maxInFlight, int maxQueued, int maxBodyBytes, Duration drain,
                          Path keysFile, String keyHashes, Set<String> allowedOrigins, List<URI> upstreams, Tls tls,
                          OAuthSettings oauth, Limits limits) {
        public Options {
            limits = limits == null ? Limits.DEFAULT : limits;
        }

        /** Plain HTTP (behind a proxy that ends TLS). */
        public Options(String host, int port, int maxInFlight, int maxQueued, int maxBodyBytes, Duration drain,
                       Path keysFile, String keyHashes, Set<String> allowedOrigins, List<URI> upstreams) {
            this(host, port, maxInFlight, maxQueued, maxBodyBytes, drain, keysFile, keyHashes, allowedOrigins, upstreams, null, null);
        }

        /** Service keys on /mcp too. */
        public Options(String host, int port, int maxInFlight, int maxQueued, int maxBodyBytes, Duration drain,
                       Path keysFile, String keyHashes, Set<String> allowedOrigins, List<URI> upstreams, Tls tls) {
            this(host, port, maxInFlight, maxQueued, maxBodyBytes, drain, keysFile, keyHashes, allowedOrigins, upstreams, tls, null);
        }

        /** With the default limits. */
        public Options(String host, int port, int maxInFlight, int maxQueued, int maxBodyBytes, Duration drain,
                       Path keysFile, String keyHashes, Set<String> allowedOrigins, List<URI> upstreams, Tls tls,
                       OAuthSettings oauth) {
            this(host, port, maxInFlight, maxQueued, maxBodyBytes, drain, keysFile, keyHashes, allowedOrigins, upstreams, tls,
                    oauth, Limits.DEFAULT);
        }

        /** The same options with MCP authorization. */
        public Options withOAuth(OAuthSettings settings) {
            return new Options(host, port, maxInFlight, maxQueued, maxBodyBytes, drain, keysFile, keyHashes, allowedOrigins,
                    upstreams, tls, settings, limits);
        }

        /** The same options with these limits. */
        public Options withLimits(Limits front) {
            return new Options(host, port, maxInFlight, maxQueued, maxBodyBytes, drain, keysFile, keyHashes, allowedOrigins,
                    upstreams, tls, oauth, front);
        }
        public static final int DEFAULT_MAX_IN_FLIGHT = 1_000;
        public static final int DEFAULT_MAX_QUEUED = 1_000;
        public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
        public static final int MAX_HEADER_BYTES = 16 * 1024;
    }

    /**
     * What bounds each caller of the HTTP front and each connection (docs/http-limits.md). Requests to {@code /mcp} and
     * {@code /v1/call} are counted per user and per client address, each a token bucket ({@code burst} at once, then
     * refilled evenly over the period); past either, 429 with {@code Retry-After}. At most {@value #MAX_TRACKED} users
     * and as many addresses are tracked (past that the idle ones are forgotten first).
     *
     * @param userRate                 per user: the signed-in account (MCP authorization), else the Google token a
     *                                 call carries (by its digest)
     * @param addressRate              per client address, for requests without a trusted service key (a backend's one
     *                                 address stands for all its users, each counted per user)
     * @param headerTimeout            how long a request's headers may take to arrive, from the connection's opening or
     *                                 the request's first byte, whatever trickle of bytes comes meanwhile; then the
     *                                 connection is closed
     * @param idleTimeout              how long a connection may stay open with nothing sent either way
     * @param maxConnections           connections open at once in all; past them the server stops accepting until
     *                                 one closes (the kernel's queue holds the rest)
     * @param maxConnectionsPerAddress connections open at once from one peer address (a trusted proxy's excepted);
     *                                 past them a new one is closed at once
     * @param trustedProxies           the proxies whose {@code X-Forwarded-For} names the client address, as
     *                                 {@link TrustedProxies#parse} reads them
     * @param metricsHosts             the {@code Host} names, addresses and ranges {@code /metrics} answers for
     *                                 ({@link MetricsHosts#parse})
     */
    public record Limits(RateLimiter.Rate userRate, RateLimiter.Rate addressRate, Duration headerTimeout,
                         Duration idleTimeout, int maxConnections, int maxConnectionsPerAddress,
                         List<String> trustedProxies, List<String> metricsHosts) {
        /**
         * 100 a second: above what one user's agent does (Gmail's own per-user quota allows about 50 get_email calls a
         * second), below what lets one user crowd out the rest; a benchmark's 4,000 warm-up calls fit its burst.
         */
        public static final RateLimiter.Rate DEFAULT_USER_RATE = new RateLimiter.Rate(6_000, Duration.ofMinutes(1));
        public static final RateLimiter.Rate DEFAULT_ADDRESS_RATE = new RateLimiter.Rate(6_000, Duration.ofMinutes(1));
        public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
        /** Above the idle timeouts of the balancers in front (AWS ALB 60 s, GCP's 30 s to 600 s): they close first. */
        public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);
        public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
        public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
        public static final List<String> DEFAULT_METRICS_HOSTS = List.of("localhost", "127.0.0.0/8", "::1/128");
        public static final int MAX_TRACKED = 100_000;
        public static final Limits DEFAULT = new Limits(DEFAULT_USER_RATE, DEFAULT_ADDRESS_RATE, DEFAULT_HEADER_TIMEOUT,
                DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, List.of(),
                DEFAULT_METRICS_HOSTS);

        public Limits {
            if (userRate == null || addressRate == null) {
                throw new IllegalArgumentException("the rates per user and per address must be set");
            }
            if (headerTimeout == null || headerTimeout.toMillis() < 100 || headerTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("the header timeout must be 100ms..5m, got " + headerTimeout);
            }
            if (idleTimeout == null || idleTimeout.toMillis() < 1_000 || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("the idle timeout must be 1s..1h, got " + idleTimeout);
            }
            if (maxConnections < 1 || maxConnections > 1_000_000) {
                throw new IllegalArgumentException("the connection cap must be 1..1000000, got " + maxConnections);
            }
            if (maxConnectionsPerAddress < 1 || maxConnectionsPerAddress > maxConnections) {
                throw new IllegalArgumentException("the connection cap per address must be 1.." + maxConnections
                        + " (the cap in all), got " + maxConnectionsPerAddress);
            }
            trustedProxies = trustedProxies.stream().map(TrustedProxies::check).toList();
            metricsHosts = List.copyOf(metricsHosts);
            MetricsHosts.parse(metricsHosts); // checked here, once
        }

        /** The same limits with these trusted proxies (as {@link TrustedProxies#parse} reads them). */
        public Limits withTrustedProxies(List<String> proxies) {
            return new Limits(userRate, addressRate, headerTimeout, idleTimeout, maxConnections, maxConnectionsPerAddress,
                    proxies, metricsHosts);
        }
    }

    /**
     * TLS on the server itself: a PKCS12 key store holding its key and certificate chain; HTTP/2 and HTTP/1.1 by ALPN.
     *
     * @param password the key store's password (from the environment, never a flag: flags show in ps)
     */
    public record Tls(Path keyStore, String password) {
        public Tls {
            if (!Files.isReadable(keyStore)) {
                throw new IllegalArgumentException("cannot read the TLS key store " + keyStore);
            }
        }

        @Override
        public String toString() {
            return "Tls[keyStore=" + keyStore + ", password=(not shown)]";
        }
    }

    /**
     * Internal failures told to remote callers: what failed in words with an error id; the detail (paths, classes, a
     * driver's text) in the server's log (stderr) under that id, for the operator.
     */
    private static final InternalErrors INTERNALS = InternalErrors.logged(line -> Diagnostics.line("agent-tools server: " + line));

    private final Server server;
    private final ServerConnector connector;
    private final McpHttpEndpoint mcp;
    private final AuthorizationServer authorization;

    private HttpService(Server server, ServerConnector connector, McpHttpEndpoint mcp, AuthorizationServer authorization) {
        this.server = server;
        this.connector = connector;
        this.mcp = mcp;
        this.authorization = authorization;
    }

    /** The listener the registry must be built with, so that /metrics counts its calls. */
    public static final class Metrics implements CallListener {
        private final Admission admission;
        private final ServiceMetrics metrics;

        private Metrics(Admission admission, PacingStats pacing) {
            this.admission = admission;
            this.metrics = new ServiceMetrics(admission, pacing);
        }

        /** Without the Google APIs' pacing (no quota waits, refusals or paced accounts shown). */
        public static Metrics create(Options options) {
            return create(options, PacingStats.NONE);
        }

        /** @param pacing what the registry's Google APIs' pacing counts (the one given to its builder) */
        public static Metrics create(Options options, PacingStats pacing) {
            return new Metrics(new Admission(options.maxInFlight(), options.maxQueued()), pacing);
        }

        @Override
        public void completed(CallOutcome outcome) {
            metrics.completed(outcome);
        }

        /** Calls running now (the gauge /metrics shows). */
        public int inFlight() {
            return admission.inFlight();
        }
    }

    /**
     * Starts serving.
     *
     * @param names        MCP tool name by registry command
     * @param storeProblem why the call store cannot take records now (null: it can), for /readyz
     * @throws IllegalArgumentException for bad options (no service key, a bad hash)
     */
    public static HttpService start(ToolRegistry registry, Metrics metrics, Map<String, String> names, String version,
                                    Options options, Supplier<String> storeProblem) throws Exception {
        // with MCP authorization, service keys are for /v1/call alone, and may be left out
        ServiceKeys keys = new ServiceKeys(options.keysFile(), options.keyHashes(), options.oauth() == null);
        Limits limits = options.limits();
        Gate gate = new Gate(keys, metrics.admission, metrics.metrics, limits);
        MetricsHosts metricsHosts = MetricsHosts.parse(limits.metricsHosts());

        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setName("agent-tools-server");
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Server server = new Server(pool);
        server.setStopTimeout(options.drain().toMillis());
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(Options.MAX_HEADER_BYTES);
        // every path form reaches AmbiguousRequests, which refuses the ambiguous ones with our JSON (Jetty's own
        // refusal of some of them is an HTML page, and leaves others to be normalised)
        http.setUriCompliance(UriCompliance.UNSAFE);
        HttpConnectionFactory http11 = new HttpConnectionFactory(http);
        ServerConnector connector;
        if (options.tls() == null) {
            connector = new ServerConnector(server, http11, new HTTP2CServerConnectionFactory(http));
        } else {
            http.addCustomizer(new SecureRequestCustomizer());
            ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory();
            alpn.setDefaultProtocol(http11.getProtocol());
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setKeyStorePath(options.tls().keyStore().toString());
            ssl.setKeyStoreType("PKCS12");
            ssl.setKeyStorePassword(options.tls().password());
            connector = new ServerConnector(server, new SslConnectionFactory(ssl, alpn.getProtocol()), alpn,
                    new HTTP2ServerConnectionFactory(http), http11);
        }
        // connections a burst opens at once wait in the kernel's queue instead of being reset (Java's default is 50:
        // 1,000 callers connecting together saw 35 resets); the kernel caps it at net.core.somaxconn
        connector.setAcceptQueueSize(4096);
        connector.setHost(options.host());
        connector.setPort(options.port());
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        server.addConnector(connector);
        // past the cap in all the connector stops accepting until a connection closes (the rest wait in the kernel's
        // queue); past the cap per address a new connection is closed at once
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
        connector.addBean(new AddressConnectionLimit(limits.maxConnectionsPerAddress(),
                new TrustedProxies(limits.trustedProxies()), metrics.metrics));

        AuthorizationServer authorization = null;
        if (options.oauth() != null) {
            connector.open(); // the port bound, for a public URL of port 0 on a loopback host
            try {
                authorization = AuthorizationServer.open(options.oauth().withBoundPort(connector.getLocalPort()),
                        Clock.systemUTC(), registry.specs());
            } catch (IOException | RuntimeException e) {
                connector.close(); // the port is not kept by a server that does not start
                throw e;
            }
        }
        // with MCP authorization, the Google token is the one the gate found for the token's user, never a header's
        McpHttpEndpoint mcp = McpHttpEndpoint.create(registry, names, version, McpGate.PATH, options.maxBodyBytes(),
                authorization == null ? request -> McpCaller.of(Gate.googleToken(request.getHeader(Gate.GOOGLE_TOKEN_HEADER)))
                        : request -> (McpCaller) request.getAttribute(McpGate.CALLER_ATTRIBUTE));
        ServletContextHandler servlets = new ServletContextHandler("/");
        servlets.addServlet(new ServletHolder("mcp", mcp.servlet()), McpGate.PATH);

        Handler.Sequence routes = new Handler.Sequence(
                new Probes(metrics.metrics, options.upstreams(), storeProblem, metricsHosts),
                new CallEndpoint(new ToolProtocol(registry, names, INTERNALS), gate, options.maxBodyBytes()),
                new McpGate(gate, options.allowedOrigins(), authorization, servlets));
        if (authorization != null) {
            routes.addHandler(authorization.handler(metrics.metrics::answered));
        }
        routes.addHandler(new NotFound());
        String prefix = options.oauth() == null ? "" : options.oauth().pathPrefix();
        server.setErrorHandler(new ErrorPages(prefix.isEmpty() ? List.of(McpGate.PATH) : List.of(McpGate.PATH, prefix + McpGate.PATH),
                options.maxBodyBytes(), Options.MAX_HEADER_BYTES, INTERNALS)); // Jetty's own errors as our JSON, never its page
        HeaderDeadline headerDeadline = new HeaderDeadline(limits.headerTimeout(), metrics.metrics,
                new AmbiguousRequests(prefix, metrics.metrics, prefix.isEmpty() ? routes : new PathPrefix(prefix, routes)));
        headerDeadline.watch(connector);
        server.setHandler(new GracefulHandler(new UnreadBodies(headerDeadline)));
        try {
            server.start();
        } catch (Exception e) {
            if (authorization != null) {
                authorization.close();
            }
            throw e;
        }
        return new HttpService(server, connector, mcp, authorization);
    }

    public int port() {
        return connector.getLocalPort();
    }

    /** Stops accepting, waits up to the drain bound for the calls in flight, then stops. */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the server: " + e.getMessage(), e);
        } finally {
            mcp.close();
            if (authorization != null) {
                authorization.close();
            }
        }
    }

    public void join() throws InterruptedException {
        server.join();
    }

    /** Any other path: the protocol's JSON, not Jetty's HTML page. */
    private static final class NotFound extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response,
                              Callback callback) {
            Answers.error(response, callback, 404, ToolException.Kind.NOT_FOUND,
                    "no such endpoint; the service has POST /v1/call, /mcp, GET /healthz, /readyz and /metrics");
            return true;
        }
    }
}
