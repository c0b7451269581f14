package dev.agenttools.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Objects;

/**
 * What an agent sees of a tool: its name, what it does, and the JSON Schema of its params.
 *
 * @param name        dotted command name, such as {@code gmail.list-emails}
 * @param description one paragraph an LLM can act on
 * @param inputSchema JSON Schema (draft 2020-12) of the params object
 */
public record ToolSpec(String name, String description, ObjectNode inputSchema) {
    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
    }
}
