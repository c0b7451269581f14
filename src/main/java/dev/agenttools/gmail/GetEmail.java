package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.List;
import java.util.Set;

/** get_email: one whole email. */
record GetEmail(GmailService service) implements Tool {
    private static final Set<String> PARAMS = Set.of("message_id", "max_body_chars", "include_html", AccessToken.PARAM);
    private static final int MAX_BODY_LIMIT = 10_000_000;

    @Override
    public ToolSpec spec() {
        ObjectNode p = GmailParams.commonProperties();
        p.putObject("message_id").put("type", "string").put("pattern", "^[0-9a-fA-F]{1,16}$")
                .put("description", "The email's id, from gmail.list-emails or gmail.search-emails.");
        p.putObject("max_body_chars").put("type", "integer").put("minimum", 1).put("maximum", MAX_BODY_LIMIT)
                .put("default", service.settings().maxBodyChars())
                .put("description", "Cut the body at this many characters (truncated tells when it was cut).");
        p.putObject("include_html").put("type", "boolean").put("default", false)
                .put("description", "Also return the HTML part as body_html.");
        return new ToolSpec(GmailTools.GET, "Get one email by id: subject, from, to, cc, date, labels, the body as readable text "
                + "(HTML turned into text with links kept) and its attachments' names, types and sizes. When part of "
                + "the email cannot be decoded, the answer has what could be and errors [{id, code, message}] says why.",
                GmailParams.schema("Params of gmail.get-email", List.of("message_id"), p), ToolSpec.Effect.READ);
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
