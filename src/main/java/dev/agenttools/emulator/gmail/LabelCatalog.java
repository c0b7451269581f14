package dev.agenttools.emulator.gmail;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The labels of one mailbox: Gmail's system labels plus user labels created as mail is loaded. Not thread-safe: the mailbox guards it. */
final class LabelCatalog {
    static final String INBOX = "INBOX";
    static final String SPAM = "SPAM";
    static final String TRASH = "TRASH";
    static final String UNREAD = "UNREAD";
    static final String STARRED = "STARRED";
    static final String IMPORTANT = "IMPORTANT";
    static final String SENT = "SENT";
    static final String DRAFT = "DRAFT";
    static final List<String> CATEGORIES = List.of("CATEGORY_PERSONAL", "CATEGORY_SOCIAL", "CATEGORY_PROMOTIONS",
            "CATEGORY_UPDATES", "CATEGORY_FORUMS");

    private final Map<String, Label> byId = new LinkedHashMap<>();

    /**
     * The system labels in the order labels.list gives them, with their visibility fields, as captured from Gmail
     * (NangoHQ/integration-templates, googleworkspace/php-samples#123): SENT, INBOX, DRAFT, STARRED and UNREAD carry
     * none; CHAT, IMPORTANT, TRASH, SPAM and the categories are hidden from the message and label lists.
     */
    LabelCatalog() {
        for (String id : List.of("CHAT", SENT, INBOX, IMPORTANT, TRASH, DRAFT, SPAM, "CATEGORY_FORUMS", "CATEGORY_UPDATES",
                "CATEGORY_PERSONAL", "CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL", STARRED, UNREAD)) {
            boolean shown = List.of(SENT, INBOX, DRAFT, STARRED, UNREAD).contains(id);
            byId.put(id, shown ? Label.system(id, null, null) : Label.system(id, "hide", "labelHide"));
        }
    }

    List<Label> all() {
        return List.copyOf(byId.values());
    }

    Optional<Label> byId(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** The user label with this display name, created when missing. */
    Label userLabel(String name) {
        for (Label l : byId.values()) {
            if (!l.system() && l.name().equals(name)) {
                return l;
            }
        }
        int next = 1 + (int) byId.values().stream().filter(l -> !l.system()).count();
        Label label = Label.user("Label_" + next, name);
        byId.put(label.id(), label);
        return label;
    }

    /** Resolves what {@code label:} names in a search: a label id, a system name, or a user label's search name. */
    List<String> idsForSearchName(String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        List<String> ids = new ArrayList<>();
        for (Label l : byId.values()) {
            if (l.id().equalsIgnoreCase(name) || l.searchName().equals(wanted)
                    || l.name().equalsIgnoreCase(name)) {
                ids.add(l.id());
            }
        }
        return ids;
    }
}
