package dev.agenttools.tool;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Objects;

/**
 * What an agent sees of a tool: its name, what it does, the JSON Schema of its params, and what a call changes.
 *
 * @param name        dotted command name, such as {@code gmail.list-emails}
 * @param description one paragraph an LLM can act on
 * @param inputSchema JSON Schema (draft 2020-12) of the params object
 * @param effect      what a call does to the user's data: every tool declares one (there is no default, so that a
 *                    write tool is never taken for a read by an oversight); the MCP authorization server gives a write
 *                    tool only to a token with its family's write scope
 */
public record ToolSpec(String name, String description, ObjectNode inputSchema, Effect effect) {
    /** What a call of a tool does to the user's data. */
    public enum Effect {
        /** Reads only: calling it any number of times changes nothing. */
        READ,
        /** Changes something that another call can put back (a habit created can be archived, a log changed). */
        REVERSIBLE,
        /** Changes something for good (a message sent, an event's guests notified, data deleted). */
        IRREVERSIBLE;

        /** Whether a call may change something. */
        public boolean writes() {
            return this != READ;
        }
    }

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(effect, "effect");
    }
}
