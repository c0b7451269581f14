package dev.agenttools.gmail;

import dev.agenttools.google.GoogleConnection;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.google.GoogleSettings;
import dev.agenttools.google.Retry;
import dev.agenttools.tool.ToolRegistry;

import java.nio.file.Path;

/**
 * Gmail registries built by hand, for tests that need their own retry policy or interceptors: a connection of their
 * own with a fixed token (and CA certificate), which closing the registry closes, as the front door's does.
 */
final class HandBuilt {
    private HandBuilt() {
    }

    static ToolRegistry registry(ToolRegistry.Builder builder, GmailSettings settings, Retry retry) {
        return registry(builder, settings, retry, null);
    }

    static ToolRegistry registry(ToolRegistry.Builder builder, GmailSettings settings, Retry retry, Path trustedCertificate) {
        GoogleConnection connection = new GoogleConnection(new GoogleSettings(trustedCertificate, "t"), null, "not signed in");
        GmailService service = new GmailService(settings, retry, connection, CacheSettings.OFF);
        return GmailTools.register(builder.resource(connection).resource(service), service).build();
    }
}
