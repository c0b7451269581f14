package dev.agenttools.cli;

import dev.agenttools.ServicePacing;
import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.google.PacingShare;
import dev.agenttools.google.PacingStats;
import dev.agenttools.server.DynamoPacingShare;
import dev.agenttools.server.HttpService;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tracking.CallRecorder;
import dev.agenttools.tracking.Tracking;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code agent-tools server}: the tools over HTTP for agent backends and MCP clients. */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Serve the tools over HTTP: POST /v1/call (the JSON tool protocol of 'call'), MCP Streamable HTTP "
                + "at /mcp (stateless), GET /healthz, /readyz and /metrics (Prometheus).",
                "Callers authenticate with a service key (Authorization: Bearer KEY; the server keeps only SHA-256 "
                        + "hashes, read again when their file changes) and pass the end user's Google access token in the "
                        + "X-Google-Access-Token header of each call. The server never uses a stored sign-in or a "
                        + "configured token: a call without a token is refused. SIGTERM stops accepting and lets the "
                        + "calls in flight finish (--drain).",
                "With AGENT_TOOLS_SERVER_PUBLIC_URL set, /mcp takes instead the server's own OAuth tokens: MCP clients "
                        + "register and sign their users in with Google through the server (docs/mcp-authorization.md)."})
final class ServerCommand implements Callable<Integer> {
    static final String KEYS_FILE = "AGENT_TOOLS_SERVICE_KEYS";
    static final String KEY_HASHES = "AGENT_TOOLS_SERVICE_KEY_HASHES";
    static final String ALLOWED_ORIGINS = "AGENT_TOOLS_SERVER_ALLOWED_ORIGINS";
    static final String TLS_PASSWORD = "AGENT_TOOLS_SERVER_TLS_PASSWORD";
    /** none (one instance, the default) or dynamodb (several behind a load balancer share the users' limits). */
    static final String SHARED_STATE = "AGENT_TOOLS_SHARED_STATE";
    static final String SHARED_TABLE = "AGENT_TOOLS_SHARED_TABLE";
    static final String SHARED_QUOTA = "AGENT_TOOLS_SHARED_QUOTA";

    @Spec
    CommandSpec spec;

    @Option(names = "--host", description = "Address to listen on (default: 127.0.0.1; 0.0.0.0 for every interface).")
    String host = "127.0.0.1";

    @Option(names = "--port", description = "Port (default: 8080; 0 for any free one, printed at start).")
    int port = 8080;

    @Option(names = "--service-keys", paramLabel = "FILE", description = "File of service key hashes, one SHA-256 hex "
            + "per line (default: " + KEYS_FILE + "). Make one: printf %%s \"$KEY\" | sha256sum")
    Path keysFile;

    @Option(names = "--max-in-flight", paramLabel = "N", description = "Calls running at once, 1..100000 (default: "
            + HttpService.Options.DEFAULT_MAX_IN_FLIGHT + ").")
    int maxInFlight = HttpService.Options.DEFAULT_MAX_IN_FLIGHT;

    @Option(names = "--max-queued", paramLabel = "N", description = "Calls waiting for a running slot, 0..100000; beyond "
            + "them 503 with Retry-After (default: " + HttpService.Options.DEFAULT_MAX_QUEUED + ").")
    int maxQueued = HttpService.Options.DEFAULT_MAX_QUEUED;

    @Option(names = "--max-body", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "Largest request body, 1k..64m (default: 1m).")
    long maxBody = HttpService.Options.DEFAULT_MAX_BODY_BYTES;

    @Option(names = "--tls-keystore", paramLabel = "FILE", description = "Serve HTTPS with this PKCS12 key store (its "
            + "password in " + TLS_PASSWORD + "); default: plain HTTP, for a TLS-ending proxy in front.")
    Path tlsKeyStore;

    @Option(names = "--drain", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a stop waits for the calls in flight (default: 30s).")
    Duration drain = Duration.ofSeconds(30);

    @Override
    public Integer call() throws Exception {
        Settings settings;
        HttpService.Options options;
        try {
            settings = Settings.load();
            options = options(settings);
            if (options.oauth() != null && settings.habit().userParam()) {
                // /mcp then serves end users signed in here, not a trusted backend: a user_id would reach anyone's habits
                throw new IllegalArgumentException("AGENT_TOOLS_HABIT_USER_PARAM=on lets a call name any user's habits, which only"
                        + " a trusted backend may; with AGENT_TOOLS_SERVER_PUBLIC_URL set, /mcp serves end users signed in here:"
                        + " unset one of them (each end user's habits are then their Google account's)");
            }
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        CallRecorder recorder = null;
        try {
            recorder = Tracking.openRecorder(settings.tracking(), Tools.commands());
        } catch (RuntimeException e) {
            spec.commandLine().getErr().println("agent-tools server: call tracking is off: " + e.getMessage());
        }
        DynamoPacingShare share;
        try {
            share = share(settings);
        } catch (RuntimeException e) {
            if (recorder != null) {
                recorder.close();
            }
            throw new ConfigurationException("configuration: " + SHARED_STATE + "=dynamodb: " + e.getMessage(), e);
        }
        PacingStats pacing = new PacingStats(); // counts only, for /metrics: no address or token reaches it
        HttpService.Metrics metrics = HttpService.Metrics.create(options, pacing);
        // Many users: no call may fall back on the operator's own token or stored sign-in
        // ... nor reach one configured user's habits: each call's are its own Google account's (or the user_id a trusted
        // backend names)
        Tools.Builder tools = Tools.builder().settings(settings).google(settings.google().withoutAccessToken()).auth(null)
                .habit(settings.habit().forManyUsers())
                .noTokenMessage("no Google access token: send the end user's token in the X-Google-Access-Token header")
                .recorder(recorder).listener(metrics).preconnect(true);
        ToolRegistry registry = ServicePacing.wire(tools, share == null ? PacingShare.ALONE : share, pacing).build();
        JitWarmUp.startOnce(settings, registry);
        CallRecorder tracking = recorder;
        HttpService service;
        try {
            service = HttpService.start(registry, metrics, Tools.SHORT_NAMES, "0.1.0", options,
                    () -> tracking != null && tracking.currentProblem() != null ? tracking.currentProblem()
                            : share != null && share.lastError() != null ? "shared state: " + share.lastError() : null);
        } catch (IllegalArgumentException e) {
            registry.close();
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        spec.commandLine().getErr().println("agent-tools server: serving on " + (tlsKeyStore == null ? "http" : "https") + "://" + host + ":" + service.port()
                + "/ (POST /v1/call, /mcp" + (options.oauth() == null ? "" : " with OAuth as " + options.oauth().publicUrl())
                + "; GET /healthz, /readyz, /metrics)");
        spec.commandLine().getErr().flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                service.close(); // stop accepting, finish the calls in flight within --drain
            } catch (Exception e) {
                System.err.println("agent-tools server: stopping: " + e.getMessage());
            } finally {
                registry.close();
                if (share != null) {
                    share.close(); // its leases let go: the other instances take the whole share at their next renewal
                }
                if (tracking != null) {
                    tracking.close();
                }
            }
        }, "server-drain"));
        service.join();
        return 0;
    }

    /** The store the instances share, as the settings say (null: this instance alone). */
    private static DynamoPacingShare share(Settings settings) {
        String mode = settings.value(SHARED_STATE);
        if (mode == null || mode.equals("none")) {
            return null;
        }
        if (!mode.equals("dynamodb")) {
            throw new IllegalArgumentException(SHARED_STATE + " must be none or dynamodb, got " + mode);
        }
        var tracking = settings.tracking(); // the DynamoDB endpoint and region, as tracking reads them
        String table = settings.value(SHARED_TABLE) == null ? "agent-tools-shared" : settings.value(SHARED_TABLE);
        String quota = settings.value(SHARED_QUOTA) == null ? "shares" : settings.value(SHARED_QUOTA);
        if (!quota.equals("shares") && !quota.equals("bucket")) {
            throw new IllegalArgumentException(SHARED_QUOTA + " must be shares or bucket, got " + quota);
        }
        return DynamoPacingShare.open(tracking.dynamoEndpoint(), tracking.region(), table, quota.equals("bucket"));
    }

    private HttpService.Options options(Settings settings) {
        if (maxInFlight < 1 || maxInFlight > 100_000) {
            throw new IllegalArgumentException("--max-in-flight must be 1..100000, got " + maxInFlight);
        }
        if (maxQueued < 0 || maxQueued > 100_000) {
            throw new IllegalArgumentException("--max-queued must be 0..100000, got " + maxQueued);
        }
        if (maxBody < 1024 || maxBody > 64L * 1024 * 1024) {
            throw new IllegalArgumentException("--max-body must be 1k..64m, got " + maxBody + " bytes");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be 0..65535, got " + port);
        }
        Path keys = keysFile != null ? keysFile
                : settings.value(KEYS_FILE) == null ? null : Path.of(settings.value(KEYS_FILE));
        String origins = settings.value(ALLOWED_ORIGINS);
        Set<String> allowed = origins == null ? Set.of() : Arrays.stream(origins.split(","))
                .map(String::strip).filter(o -> !o.isEmpty()).collect(Collectors.toSet());
        List<URI> upstreams = List.of(URI.create(settings.gmail().rootUrl()), URI.create(settings.calendar().rootUrl()))
                .stream().distinct().toList();
        HttpService.Tls tls = null;
        if (tlsKeyStore != null) {
            String password = settings.value(TLS_PASSWORD);
            if (password == null) {
                throw new IllegalArgumentException("--tls-keystore needs the key store's password in " + TLS_PASSWORD);
            }
            tls = new HttpService.Tls(tlsKeyStore, password);
        }
        return new HttpService.Options(host, port, maxInFlight, maxQueued, (int) maxBody, drain, keys,
                settings.value(KEY_HASHES), allowed, upstreams, tls, ServerAuthorization.from(settings, System.getenv()),
                ServerLimits.from(settings));
    }
}
