package dev.agenttools.tracking;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A local DynamoDB-compatible server (dynalite from npm, installed by the build) for the duration of a test. */
public final class Dynalite implements AutoCloseable {
    private final Process process;
    public final URI endpoint;
    private final int port;
    private final Path store;

    private Dynalite(Process process, int port, Path store) {
        this.process = process;
        this.port = port;
        this.store = store;
        this.endpoint = URI.create("http://127.0.0.1:" + port);
    }

    /** A server whose tables live in its memory: gone when it stops. */
    public static Dynalite start() throws IOException, InterruptedException {
        return start(freePort(), null);
    }

    /** A server whose tables live in {@code store} (LevelDB), so that they outlive a {@link #restart}. */
    static Dynalite start(Path store) throws IOException, InterruptedException {
        return start(freePort(), store);
    }

    /** A new server where this one was, on its port and with its store (its tables, unless they were in memory). */
    Dynalite restart() throws IOException, InterruptedException {
        stop();
        return start(port, store);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Dynalite start(int port, Path store) throws IOException, InterruptedException {
        Path dir = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        Path cli = dir.resolve("node_modules/dynalite/cli.js");
        if (!cli.toFile().exists()) {
            throw new IllegalStateException("dynalite is missing: the build installs it with 'npm install' in " + dir);
        }
        // its wrapper: a client that goes away mid-request (a test stopping a server) does not end the store
        List<String> command = new ArrayList<>(List.of("node", dir.resolve("dynalite.cjs").toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port), "--createTableMs", "20"));
        if (store != null) {
            command.addAll(List.of("--path", store.toString()));
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && p.isAlive()) {
            try {
                new Socket("127.0.0.1", port).close(); // it accepts connections: up
                return new Dynalite(p, port, store);
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        boolean exited = !p.isAlive(); // another server took the port meanwhile, say
        p.destroyForcibly();
        throw new IllegalStateException("dynalite did not start on port " + port + (exited ? " (it exited)" : ""));
    }

    public DynamoDbClient client() {
        return DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    /** Stops the server now (a test's "the server goes away"); idempotent. */
    public void stop() {
        // SIGKILL: a graceful stop waits for clients' keep-alive connections, and its store is in memory anyway
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
