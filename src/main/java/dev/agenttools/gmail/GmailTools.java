package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.GoogleConnection;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.google.Strategy;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.List;
import java.util.Set;

/** The Gmail tools: list_emails, search_emails and get_email, as registry tools. */
public final class GmailTools {
    public static final String LIST = "gmail.list-emails";
    public static final String SEARCH = "gmail.search-emails";
    public static final String GET = "gmail.get-email";
    static final int MAX_RESULTS_LIMIT = 500;
    static final int DEFAULT_MAX_RESULTS = 10;
    static final String CACHE = "cache";

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
    public static String accountAddress(GmailSettings settings, GoogleConnection connection, java.time.Duration timeout) {
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
        return registry.tool(new ListEmails(lister)).tool(new SearchEmails(lister))
                .tool(new GetEmail(service));
    }

    private static ObjectNode schema(String description, List<String> required, ObjectNode properties) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", description);
        schema.set("properties", properties);
        ArrayNode req = schema.putArray("required");
        required.forEach(req::add);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The params every Gmail tool has (the registry adds timeout_ms and agent_name). */
    private static ObjectNode commonProperties() {
        return AccessToken.properties("An OAuth2 access token for Gmail; without it the stored sign-in is used. Never logged.");
    }

    private static void listProperties(ObjectNode p) {
        p.putObject("max_results").put("type", "integer").put("minimum", 1).put("maximum", MAX_RESULTS_LIMIT)
                .put("default", DEFAULT_MAX_RESULTS).put("description", "How many emails to return (newest first).");
        p.putObject("page_token").put("type", "string")
                .put("description", "The next_page_token of a previous answer, to get the next page.");
        Strategy.describe(p, "How the emails are fetched: auto (best), sequential, concurrent or batch. The answer is the same.");
        ObjectNode cache = p.putObject(CACHE).put("type", "string").put("default", "auto")
                .put("description", "The local mail index (when AGENT_TOOLS_CACHE is not off): auto (one round trip when "
                        + "nothing new arrived), off (ask Gmail for everything), refresh (ask Gmail for everything and "
                        + "rebuild the index). The answer is the same.");
        ArrayNode modes = cache.putArray("enum");
        MailLister.IndexUse.NAMES.forEach(modes::add);
    }

    /** A list by label or by query, with the params both tools share. */
    private static ToolResult list(MailLister lister, ToolCall call, Params p, String label, String query) throws InterruptedException {
        return lister.list(new MailLister.Request(label, query, p.integer("max_results", 1, MAX_RESULTS_LIMIT, DEFAULT_MAX_RESULTS),
                p.string("page_token", null), Strategy.of(p), MailLister.IndexUse.of(p, CACHE), call.deadline(), AccessToken.of(p)));
    }

    /** list_emails: the newest emails with a label. */
    private record ListEmails(MailLister lister) implements Tool {
        private static final Set<String> PARAMS = Set.of("label", "max_results", "page_token", Strategy.PARAM, CACHE, AccessToken.PARAM);

        @Override
        public ToolSpec spec() {
            ObjectNode p = commonProperties();
            p.putObject("label").put("type", "string").put("default", "INBOX")
                    .put("description", "A label id (INBOX, UNREAD, STARRED, SENT, Label_12) or a user label's name (Work).");
            listProperties(p);
            return new ToolSpec(LIST, "List the newest emails with a Gmail label (INBOX by default): id, thread_id, subject, "
                    + "from, to, date, snippet, labels, unread and has_attachments for each, newest first. "
                    + "Use get_email (gmail.get-email) with an id for the whole body. An email that cannot be fetched or "
                    + "decoded does not fail the list: it keeps its place with its id and thread_id, and errors "
                    + "[{id, code, message}] says why.",
                    schema("Params of gmail.list-emails", List.of(), p), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = Params.of(call, PARAMS);
            return list(lister, call, p, p.string("label", "INBOX"), null);
        }

        @Override
        public ToolCall fallback(ToolCall failed) {
            return Strategy.sequentially(failed);
        }
    }

    /** search_emails: emails matching a Gmail query. */
    private record SearchEmails(MailLister lister) implements Tool {
        private static final Set<String> PARAMS = Set.of("query", "max_results", "page_token", Strategy.PARAM, CACHE, AccessToken.PARAM);

        @Override
        public ToolSpec spec() {
            ObjectNode p = commonProperties();
            p.putObject("query").put("type", "string").put("minLength", 1)
                    .put("description", "A Gmail search, as in Gmail's search box: from:amy subject:(dinner) has:attachment "
                            + "newer_than:7d is:unread \"exact phrase\" -word, OR, parentheses.");
            listProperties(p);
            return new ToolSpec(SEARCH, "Search Gmail with Gmail's search syntax and list the matching emails, newest first, "
                    + "with the same fields as gmail.list-emails (errors included).", schema("Params of gmail.search-emails", List.of("query"), p), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = Params.of(call, PARAMS);
            return list(lister, call, p, null, p.requiredString("query"));
        }

        @Override
        public ToolCall fallback(ToolCall failed) {
            return Strategy.sequentially(failed);
        }
    }

    /** get_email: one whole email. */
    private record GetEmail(GmailService service) implements Tool {
        private static final Set<String> PARAMS = Set.of("message_id", "max_body_chars", "include_html", AccessToken.PARAM);
        private static final int MAX_BODY_LIMIT = 10_000_000;

        @Override
        public ToolSpec spec() {
            ObjectNode p = commonProperties();
            p.putObject("message_id").put("type", "string").put("pattern", "^[0-9a-fA-F]{1,16}$")
                    .put("description", "The email's id, from gmail.list-emails or gmail.search-emails.");
            p.putObject("max_body_chars").put("type", "integer").put("minimum", 1).put("maximum", MAX_BODY_LIMIT)
                    .put("default", service.settings().maxBodyChars())
                    .put("description", "Cut the body at this many characters (truncated tells when it was cut).");
            p.putObject("include_html").put("type", "boolean").put("default", false)
                    .put("description", "Also return the HTML part as body_html.");
            return new ToolSpec(GET, "Get one email by id: subject, from, to, cc, date, labels, the body as readable text "
                    + "(HTML turned into text with links kept) and its attachments' names, types and sizes. When part of "
                    + "the email cannot be decoded, the answer has what could be and errors [{id, code, message}] says why.",
                    schema("Params of gmail.get-email", List.of("message_id"), p), ToolSpec.Effect.READ);
        }

        @Override
        public ToolResult call(ToolCall call) throws InterruptedException {
            Params p = Params.of(call, PARAMS);
            String id = p.requiredString("message_id");
            if (!id.matches("[0-9a-fA-F]{1,16}")) {
                throw ToolException.invalidArgument("message_id must be a Gmail message id (1 to 16 hex digits), got \""
                        + (id.length() > 40 ? id.substring(0, 40) + "..." : id) + "\"");
            }
            int maxBody = p.integer("max_body_chars", 1, MAX_BODY_LIMIT, service.settings().maxBodyChars());
            boolean html = p.bool("include_html", false);
            // client set-up (transport, TLS context, stored sign-in) is inside the deadline: a cold start counts
            GmailService.Session session = service.sessionFor(AccessToken.of(p));
            // a failed get fails the call; a message the decoder trips on is answered with what it could read
            return new ToolResult(Json.tree(Salvage.detail(service.get(session, id, GmailService.View.DETAIL, call.deadline()),
                    id, maxBody, html)), Backend.SEQUENTIAL, 1);
        }
    }
}
