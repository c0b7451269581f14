package dev.agenttools.emulator.gmail;

import java.util.Locale;

/**
 * A Gmail label. System labels have fixed ids (INBOX, UNREAD...); user labels get {@code Label_N} ids.
 *
 * @param name for user labels the display name, nested with {@code /} ("Projects/agent-tools")
 */
record Label(String id, String name, boolean system, String messageListVisibility, String labelListVisibility) {

    static Label system(String id, String messageListVisibility, String labelListVisibility) {
        return new Label(id, id, true, messageListVisibility, labelListVisibility);
    }

    static Label user(String id, String name) {
        return new Label(id, name, false, "show", "labelShow");
    }

    /** The name as the search box writes it: lower case, spaces and slashes as dashes ({@code label:projects-agent-tools}). */
    String searchName() {
        return name.toLowerCase(Locale.ROOT).replaceAll("[\\s/]+", "-");
    }
}
