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

/** A local DynamoDB-compatible server (dynalite from npm, installed by the build) for the duration of a test. */
public final class Dynalite implements AutoCloseable {
    private final Process process;
    public final URI endpoint;

    private Dynalite(Process process, URI endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    public static Dynalite start() throws IOException, InterruptedException {
        Path dir = Path.of(System.getProperty("agenttools.nodeTestDir", "src/test/node"));
        Path cli = dir.resolve("node_modules/dynalite/cli.js");
        if (!cli.toFile().exists()) {
            throw new IllegalStateException("dynalite is missing: the build installs it with 'npm install' in " + dir);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder("node", cli.toString(), "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--createTableMs", "20").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                new Socket("127.0.0.1", port).close(); // it accepts connections: up
                return new Dynalite(p, URI.create("http://127.0.0.1:" + port));
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException("dynalite did not start on port " + port);
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
