package dev.agenttools.emulator;

import com.google.api.client.http.HttpRequestInitializer;
import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.services.gmail.Gmail;

import java.time.Duration;

/** The official Gmail Java client pointed at an emulator: only the root URL and the token differ from production. */
public final class JavaGmailClient {
    private JavaGmailClient() {
    }

    public static Gmail connect(Emulator emulator, String token) {
        HttpRequestInitializer auth = request -> {
            request.getHeaders().setAuthorization("Bearer " + token);
            request.setReadTimeout(30_000);
        };
        return new Gmail.Builder(new NetHttpTransport(), GsonFactory.getDefaultInstance(), auth)
                .setApplicationName("agent-tools-emulator-test")
                .setRootUrl(emulator.rootUri().toString())
                .build();
    }

    /** A fast emulator for functional tests: no latency, no handshake, a generous quota. */
    public static EmulatorConfig.Builder fastConfig() {
        return EmulatorConfig.builder().latency(Duration.ZERO).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).quotaPerMinute(6_000_000).maxConcurrent(1_000);
    }
}
