package dev.agenttools;

import dev.agenttools.gmail.GmailService;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.gmail.GmailTools;
import dev.agenttools.tool.ToolRegistry;

/**
 * The front door: builds the one tool registry that the command line, the persistent process, the MCP server
 * and the benchmark all call.
 */
public final class Tools {
    private Tools() {
    }

    public static ToolRegistry registry(GmailSettings gmail) {
        return GmailTools.register(ToolRegistry.builder(), new GmailService(gmail))
                .interceptor(new dev.agenttools.tool.FallbackInterceptor())
                .build();
    }

    /**
     * A registry for a Gmail at {@code rootUrl} (an emulator's, say) paced to the given per-user limits.
     *
     * @param accessToken the token to use when a call passes none, or null
     */
    public static ToolRegistry registry(String rootUrl, int quotaPerMinute, int burst, int maxInFlight, String accessToken) {
        return registry(GmailSettings.forRoot(rootUrl).withPacing(quotaPerMinute, burst, maxInFlight).withAccessToken(accessToken));
    }

    /** A registry for the Gmail the environment names (see {@link GmailSettings#fromEnvironment}); Google's by default. */
    public static ToolRegistry registryFromEnvironment() {
        return registry(GmailSettings.fromEnvironment(System.getenv()));
    }

    /** HTML mail as the text get_email returns (for the benchmark's decoding figure). */
    public static String htmlToText(String html) {
        return dev.agenttools.gmail.MailText.htmlToText(html);
    }

    /** The tool names as the benchmark and the docs show them (list_emails...), by command name. */
    public static final java.util.Map<String, String> SHORT_NAMES = java.util.Map.of(
            GmailTools.LIST, "list_emails", GmailTools.SEARCH, "search_emails", GmailTools.GET, "get_email");
}
