package dev.agenttools.gmail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.google.AccessToken;
import dev.agenttools.google.Strategy;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.Tool;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolResult;
import dev.agenttools.tool.ToolSpec;

import java.util.List;
import java.util.Set;

/** list_emails: the newest emails with a label. */
record ListEmails(MailLister lister) implements Tool {
    private static final Set<String> PARAMS = Set.of("label", "max_results", "page_token", Strategy.PARAM, GmailParams.CACHE, AccessToken.PARAM);

    @Override
    public ToolSpec spec() {
        ObjectNode p = GmailParams.commonProperties();
        p.putObject("label").put("type", "string").put("default", "INBOX")
                .put("description", "A label id (INBOX, UNREAD, STARRED, SENT, Label_12) or a user label's name (Work).");
        GmailParams.listProperties(p);
        return new ToolSpec(GmailTools.LIST, "List the newest emails with a Gmail label (INBOX by default): id, thread_id, subject, "
                + "from, to, date, snippet, labels, unread and has_attachments for each, newest first. "
                + "Use get_email (gmail.get-email) with an id for the whole body. An email that cannot be fetched or "
                + "decoded does not fail the list: it keeps its place with its id and thread_id, and errors "
                + "[{id, code, message}] says why.",
                GmailParams.schema("Params of gmail.list-emails", List.of(), p), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = Params.of(call, PARAMS);
        return GmailParams.list(lister, call, p, p.string("label", "INBOX"), null);
    }

    @Override
    public ToolCall fallback(ToolCall failed) {
        return Strategy.sequentially(failed);
    }
}
