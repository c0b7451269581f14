package dev.agenttools.emulator.gmail;

import java.util.Set;

/**
 * One message to load into a mailbox, from the seed generator or from the user's mbox or .eml files.
 *
 * @param labelIds     label ids (system) or {@code user:Name} for user labels
 * @param internalDate epoch ms the message arrived; negative before 1970
 * @param threadKey    messages with the same key share a thread; null to thread by References/In-Reply-To
 * @param origin       where the message came from, for the line that names it if it cannot be read
 *                     ({@code 2026/a.eml}, {@code mail.mbox message 3 at byte 1204})
 */
record MailInput(byte[] raw, Set<String> labelIds, long internalDate, String threadKey, String origin) {
}
