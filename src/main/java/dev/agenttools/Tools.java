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
        return registry(gmail, null);
    }

    /**
     * The registry with its interceptors: tracking outermost (it sees what the caller sees, fallback included),
     * then the fallback router.
     *
     * @param recorder where call records go, or null for none
     */
    public static ToolRegistry registry(GmailSettings gmail, dev.agenttools.tracking.CallRecorder recorder) {
        return registry(gmail, null, recorder);
    }

    /**
     * @param auth     where the stored sign-in lives (used when a call brings no token), or null
     * @param recorder where call records go, or null for none
     */
    public static ToolRegistry registry(GmailSettings gmail, dev.agenttools.auth.AuthSettings auth,
                                        dev.agenttools.tracking.CallRecorder recorder) {
        ToolRegistry.Builder b = ToolRegistry.builder();
        if (recorder != null) {
            b.interceptor(new dev.agenttools.tracking.TrackingInterceptor(recorder));
        }
        b.interceptor(new dev.agenttools.tool.FallbackInterceptor());
        return GmailTools.register(b, new GmailService(gmail, auth)).build();
    }

    /**
     * The registry for the Gmail the config file and environment name (see {@link Config}), with the stored sign-in,
     * recording calls to {@code recorder} (null: none).
     */
    public static ToolRegistry registryFromEnvironment(dev.agenttools.tracking.CallRecorder recorder) {
        return registry(Config.load(), recorder);
    }

    /** The registry for settings already read by {@link Config#load()} (so start-up reads the config file once). */
    public static ToolRegistry registry(java.util.Map<String, String> settings, dev.agenttools.tracking.CallRecorder recorder) {
        return registry(GmailSettings.fromEnvironment(settings),
                dev.agenttools.auth.AuthSettings.from(settings, Config.configHome(System.getenv())), recorder);
    }

    /** The commands of the Gmail tools (what call statistics are kept for). */
    public static java.util.List<String> commands() {
        return java.util.List.of(GmailTools.LIST, GmailTools.SEARCH, GmailTools.GET);
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
        return registryFromEnvironment(null);
    }

    /** HTML mail as the text get_email returns (for the benchmark's decoding figure). */
    public static String htmlToText(String html) {
        return dev.agenttools.gmail.MailText.htmlToText(html);
    }

    /** The tool names as the benchmark and the docs show them (list_emails...), by command name. */
    public static final java.util.Map<String, String> SHORT_NAMES = java.util.Map.of(
            GmailTools.LIST, "list_emails", GmailTools.SEARCH, "search_emails", GmailTools.GET, "get_email");
}
