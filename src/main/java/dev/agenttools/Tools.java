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
        return GmailTools.register(ToolRegistry.builder(), new GmailService(gmail)).build();
    }
}
