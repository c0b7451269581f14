package dev.agenttools.habit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.agenttools.habit.HabitParams.clip;

/**
 * What every Habit tool shares: the store (opened on the first call), the settings that say whose habits a call
 * reaches, the Google account for settings that name no user, the clock and the memo of computed statuses; and what
 * follows from them for every tool (whose habits, which params, the habit a call names).
 */
record HabitContext(HabitContext.LazyStore store, HabitSettings settings, GoogleAccount account, Clock clock, ProgressMemo memo) {
    static final String USER_ID = "user_id";
    /** The Gmail and Calendar tools' token param: here it names the account whose habits a call reaches. */
    static final String ACCESS_TOKEN = "access_token";

    /** The store, opened on first use; a failed open is tried again by the next call. */
    static final class LazyStore implements AutoCloseable {
        private final HabitSettings settings;
        private HabitStore store;
        private boolean closed;

        LazyStore(HabitSettings settings) {
            this.settings = settings;
        }

        synchronized HabitStore get() {
            if (closed) {
                throw ToolException.internal("the habit store is closed (the process is ending)", "the habit store is closed (the process is ending)", null);
            }
            if (store == null) {
                store = HabitStore.open(settings);
            }
            return store;
        }

        @Override
        public synchronized void close() {
            closed = true;
            if (store != null) {
                store.close();
            }
        }
    }

    /** Whose habits this call reaches: the user it names (a trusted backend), the configured one, or its Google account's. */
    String user(ToolCall call, Params p) throws InterruptedException {
        String given = p.string(USER_ID, null);
        if (given == null) {
            if (settings.defaultUser() != null) {
                return settings.defaultUser();
            }
            if (account == null) {
                throw settings.userParam()
                        ? ToolException.invalidArgument(USER_ID + " is required: this service keeps habits for many users"
                        + " and a trusted backend names each call's")
                        : new ToolException(ToolException.Kind.UNAUTHENTICATED, "the Habit tools keep each Google account's"
                        + " habits and no Google account is configured here" + (settings.manyUsers() ? ": this service"
                        + " cannot tell whose habits a call reaches" : ": set " + HabitSettings.USER_VARIABLE
                        + " to keep them under a name of your own"));
            }
            try {
                return HabitUsers.ofGoogleAddress(account.address(p, call.deadline()));
            } catch (ToolException e) {
                if (e.kind() != ToolException.Kind.UNAUTHENTICATED) {
                    throw e;
                }
                throw new ToolException(e.kind(), e.getMessage() + (settings.manyUsers()
                        ? " (this service keeps each end user's habits under the Google account of their token: send it)"
                        : " (the Habit tools keep the signed-in Google account's habits; or set " + HabitSettings.USER_VARIABLE
                        + " to keep them under a name of your own)"), e);
            }
        }
        return HabitUsers.ofUserId(given); // only where a trusted backend names users: params() refuses it elsewhere
    }

    /**
     * The call's params, each one this tool knows ({@code known}, and whose: {@link #whose}); a {@code user_id} where
     * no trusted backend names users is refused with its reason (it is no param of the tool there, so an unknown
     * param's answer does not list it).
     */
    Params params(ToolCall call, Set<String> known) {
        if (!settings.userParam() && call.params().has(USER_ID)) {
            throw ToolException.invalidArgument(USER_ID + " is not accepted here: calls reach "
                    + (settings.defaultUser() != null ? "the configured user's habits (" + HabitSettings.USER_VARIABLE + ")"
                    : "the habits of their Google account") + "; only a trusted backend names users ("
                    + HabitSettings.USER_PARAM_VARIABLE + "=on). Leave it out");
        }
        return Params.of(call, known);
    }

    /**
     * The user's habit named by the {@code habit} param: its id, else its name (any case, NFC). Unambiguous: no name
     * has the form of an id ({@link HabitParams#name} refuses one), so an id never finds a habit by name, nor a name by id.
     */
    Habit habit(Params p, String user) {
        String ref = Params.name("habit", p.requiredString("habit"), Habit.MAX_NAME_CHARS);
        return store.get().find(user, ref).orElseThrow(() -> new ToolException(ToolException.Kind.NOT_FOUND,
                "habit: no habit with id or name \"" + clip(ref) + "\" (habit.list shows them; archived ones with include_archived)"));
    }

    /** The params that say whose habits a call reaches here ({@code user_id}, {@code access_token}), and {@code more}. */
    Set<String> whose(String... more) {
        Set<String> known = new HashSet<>(List.of(more));
        if (settings.userParam()) {
            known.add(USER_ID); // elsewhere refused with its reason by params()
        }
        if (account != null) {
            known.add(ACCESS_TOKEN); // accepted as the Gmail tools accept it; with a configured user it names no one
        }
        return known;
    }

    ObjectNode properties() {
        ObjectNode p = Json.object();
        if (account != null) {
            p.putObject(ACCESS_TOKEN).put("type", "string").put("description", settings.defaultUser() == null
                    ? "An OAuth access token of the Google account whose habits these are, as the Gmail tools take it. "
                    + "Default: the configured token or the stored sign-in."
                    : "Accepted as the Gmail tools take it; the habits here are the configured user's whatever the token.");
        }
        if (settings.userParam()) {
            p.putObject(USER_ID).put("type", "string").put("minLength", 1).put("maxLength", HabitSettings.MAX_USER_CHARS)
                    .put("description", "Whose habits (the end user's id, as the trusted backend knows them; any case: "
                            + "ALICE is alice). One line, without control, bidi or zero-width characters."
                            + (settings.defaultUser() == null ? "" : " Default: the configured user's habits ("
                            + settings.defaultUser() + "), which no user_id reaches."));
        }
        return p;
    }

    ObjectNode withHabit(ObjectNode p) {
        p.putObject("habit").put("type", "string").put("minLength", 1).put("maxLength", Habit.MAX_NAME_CHARS)
                .put("description", "The habit: its id (hab_ and 16 hex digits, a form no name has) or its name, any "
                        + "case (\"Running\" finds \"running\").");
        return p;
    }
}
