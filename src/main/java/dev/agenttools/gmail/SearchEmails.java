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

/** search_emails: emails matching a Gmail query. */
record SearchEmails(MailLister lister) implements Tool {
    private static final Set<String> PARAMS = Set.of("query", "max_results", "page_token", Strategy.PARAM, GmailParams.CACHE, AccessToken.PARAM);

    @Override
    public ToolSpec spec() {
        ObjectNode p = GmailParams.commonProperties();
        p.putObject("query").put("type", "string").put("minLength", 1)
                .put("description", "A Gmail search, as in Gmail's search box: from:amy subject:(dinner) has:attachment "
                        + "newer_than:7d is:unread \"exact phrase\" -word, OR, parentheses.");
        GmailParams.listProperties(p);
        return new ToolSpec(GmailTools.SEARCH, "Search Gmail with Gmail's search syntax and list the matching emails, newest first, "
                + "with the same fields as gmail.list-emails (errors included).", GmailParams.schema("Params of gmail.search-emails", List.of("query"), p), ToolSpec.Effect.READ);
    }

    @Override
    public ToolResult call(ToolCall call) throws InterruptedException {
        Params p = Params.of(call, PARAMS);
        return GmailParams.list(lister, call, p, null, p.requiredString("query"));
    }

    @Override
    public ToolCall fallback(ToolCall failed) {
        return Strategy.sequentially(failed);
    }
}
