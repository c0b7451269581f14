package dev.agenttools.server;

import dev.agenttools.google.PacingStats;
import dev.agenttools.mcp.McpCaller;
import dev.agenttools.mcp.McpHttpEndpoint;
import dev.agenttools.server.oauth.AuthorizationServer;
import dev.agenttools.server.oauth.OAuthSettings;
import dev.agenttools.tool.CallListener;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
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
     */
    public record Options(String host, int port, int maxInFlight, int maxQueued, int maxBodyBytes, Duration drain,
                          Path keysFile, String keyHashes, Set<String> allowedOrigins, List<URI> upstreams, Tls tls,
                          OAuthSettings oauth) {
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

        /** The same options with MCP authorization. */
        public Options withOAuth(OAuthSettings settings) {
            return new Options(host, port, maxInFlight, maxQueued, maxBodyBytes, drain, keysFile, keyHashes, allowedOrigins,
                    upstreams, tls, settings);
        }
        public static final int DEFAULT_MAX_IN_FLIGHT = 1_000;
        public static final int DEFAULT_MAX_QUEUED = 1_000;
        public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
        public static final int MAX_HEADER_BYTES = 16 * 1024;
    }

    /**
     * TLS on the server itself: a PKCS12 key store holding its key and certificate chain; HTTP/2 and HTTP/1.1 by ALPN.
     *
     * @param password the key store's password (from the environment, never a flag: flags show in ps)
     */
    public record Tls(Path keyStore, String password) {
        public Tls {
            if (!java.nio.file.Files.isReadable(keyStore)) {
                throw new IllegalArgumentException("cannot read the TLS key store " + keyStore);
            }
        }

        @Override
        public String toString() {
            return "Tls[keyStore=" + keyStore + ", password=(not shown)]";
        }
    }

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
        public void completed(dev.agenttools.tool.CallOutcome outcome) {
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
        Gate gate = new Gate(keys, metrics.admission, metrics.metrics);

        QueuedThreadPool pool = new QueuedThreadPool();
        pool.setName("agent-tools-server");
        pool.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Server server = new Server(pool);
        server.setStopTimeout(options.drain().toMillis());
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(Options.MAX_HEADER_BYTES);
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
        server.addConnector(connector);

        AuthorizationServer authorization = null;
        if (options.oauth() != null) {
            connector.open(); // the port bound, for a public URL of port 0 on a loopback host
            try {
                authorization = AuthorizationServer.open(options.oauth().withBoundPort(connector.getLocalPort()),
                        java.time.Clock.systemUTC(), registry.specs());
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
                new Probes(metrics.metrics, options.upstreams(), storeProblem),
                new CallEndpoint(new ToolProtocol(registry, names), gate, options.maxBodyBytes()),
                new McpGate(gate, options.allowedOrigins(), authorization, servlets));
        if (authorization != null) {
            routes.addHandler(authorization.handler(metrics.metrics::answered));
        }
        routes.addHandler(new NotFound());
        String prefix = options.oauth() == null ? "" : options.oauth().pathPrefix();
        server.setHandler(new GracefulHandler(prefix.isEmpty() ? routes : new PathPrefix(prefix, routes)));
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
        public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
                              org.eclipse.jetty.util.Callback callback) {
            Answers.error(response, callback, 404, dev.agenttools.tool.ToolException.Kind.NOT_FOUND,
                    "no such endpoint; the service has POST /v1/call, /mcp, GET /healthz, /readyz and /metrics");
            return true;
        }
    }
}
