package dev.agenttools.gmail;

import dev.agenttools.google.GoogleConnection;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;

import java.time.Duration;
import java.util.List;

/** The Gmail tools: list_emails, search_emails and get_email, as registry tools. */
public final class GmailTools {
    public static final String LIST = "gmail.list-emails";
    public static final String SEARCH = "gmail.search-emails";
    public static final String GET = "gmail.get-email";

    private GmailTools() {
    }

    /**
     * The {@code fields} masks list_emails asks Gmail for: messages.list's, then each messages.get's (for the
     * benchmark's bare client, which must make the server do the same work as the tools).
     */
    public static final List<String> LIST_FIELD_MASKS = List.of(GmailService.LIST_FIELDS, GmailService.SUMMARY_FIELDS);

    /**
     * The Gmail tools on the registry's connection to Google, keeping a local mail index as {@code cache} says (closed
     * with the registry).
     */
    public static ToolRegistry.Builder register(ToolRegistry.Builder registry, GmailSettings settings, GoogleConnection connection,
                                                CacheSettings cache) {
        GmailService service = new GmailService(settings, connection, cache);
        return register(registry.resource(service), service);
    }

    /**
     * The address of the account the connection acts as without a token of the call's own (users.getProfile).
     *
     * @throws ToolException when Gmail cannot be asked (not signed in, offline, refused)
     */
    public static String accountAddress(GmailSettings settings, GoogleConnection connection, Duration timeout) {
        try (GmailService gmail = new GmailService(settings, connection, CacheSettings.OFF)) {
            return gmail.emailAddress(timeout);
        }
    }

    /**
     * How to ask who a session's credential is through Gmail (users.getProfile, 1 quota unit): for the tools of other
     * families that act as the same account (the Habit tools key habits by it). No mail index: nothing to close.
     */
    public static GoogleConnection.WhoIs whoIs(GmailSettings settings, GoogleConnection connection) {
        GmailService gmail = new GmailService(settings, connection, CacheSettings.OFF);
        return (session, deadline) -> gmail.profile(gmail.session(session), deadline).address();
    }

    static ToolRegistry.Builder register(ToolRegistry.Builder registry, GmailService service) {
        MailLister lister = new MailLister(service);
        // one tool, one file: its name, description, schema, effect and code together
        return registry.tool(new ListEmails(lister)).tool(new SearchEmails(lister)).tool(new GetEmail(service));
    }
}
