package dev.agenttools.habit;

import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolException;

import java.text.Normalizer;
import java.util.Locale;

/**
 * The key a user's habits are kept under, in both stores (SQLite's {@code user} column; DynamoDB's partition, a digest
 * of it): one folding for each of the three ways a call names its user, and a namespace that keeps them apart.
 *
 * <ul>
 *   <li>The Google account of the call's credential: its address, lowercased (Gmail addresses are case-insensitive:
 *       one account, one key, however Google spells it). Kept as before: {@code me@example.com}.</li>
 *   <li>The configured user ({@code AGENT_TOOLS_HABIT_USER}): as the operator wrote it. Kept as before:
 *       {@code local}. It never meets a Google address: a deployment that configures a user asks Google for none.</li>
 *   <li>A trusted backend's {@code user_id}: {@value #USER_ID_PREFIX} and the id, stripped, in Unicode NFC and lowercased
 *       ({@code ALICE} and {@code alice} are one user), refused when it has a control, format, bidi or zero-width
 *       character. The prefix is a namespace of its own: a {@code user_id} of {@code me@example.com} reaches
 *       {@code user_id:me@example.com}, never the habits me@example.com made with its own token, nor the configured
 *       user's. No Google address begins so (an address has no {@code :} outside quotes, and one that would is
 *       refused), and no configured user may ({@link HabitSettings} refuses it).</li>
 * </ul>
 *
 * <p>Why a prefix on the new kind and not on the old ones: the addresses and the configured user are what every store
 * written before holds, so they read as they did. Habits a trusted backend kept before this namespace existed stay under
 * the bare id, which no call reaches any more: they could be a Google account's, and nothing tells which. A backend
 * that kept some moves them once (docs/habits.md says how).
 */
final class HabitUsers {
    /** What begins the key of every user a trusted backend names. */
    static final String USER_ID_PREFIX = "user_id:";

    private HabitUsers() {
    }

    /**
     * The key of a backend's {@code user_id}.
     *
     * @throws ToolException INVALID_ARGUMENT naming {@code user_id} when it is empty, longer than
     *                       {@value HabitSettings#MAX_USER_CHARS} code points, or not plain text
     */
    static String ofUserId(String given) {
        return USER_ID_PREFIX + fold(Params.name("user_id", given, HabitSettings.MAX_USER_CHARS));
    }

    /**
     * The key of the Google account whose address Google gave.
     *
     * @throws ToolException UPSTREAM when it is no address a key can be made of (it would reach another namespace)
     */
    static String ofGoogleAddress(String address) {
        String key = fold(address.strip());
        if (key.isEmpty() || key.startsWith(USER_ID_PREFIX) || Params.codePoints(key) > HabitSettings.MAX_USER_CHARS) {
            throw new ToolException(ToolException.Kind.UPSTREAM, "Google named the account of this token with something that"
                    + " is not an email address; its habits cannot be kept");
        }
        return key;
    }

    /** Lowercased (Locale.ROOT: the same in every locale) and in NFC (lowercasing can undo it). */
    private static String fold(String s) {
        return Normalizer.normalize(s.toLowerCase(Locale.ROOT), Normalizer.Form.NFC);
    }
}
