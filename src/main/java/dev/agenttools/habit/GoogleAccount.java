package dev.agenttools.habit;

import dev.agenttools.tool.Deadline;
import dev.agenttools.tool.Params;

/**
 * Whose Google account a call's credential is: the account Gmail and Calendar act as for the same call (its own
 * {@code access_token}, else the configured token, else the stored sign-in). The front door ({@code Tools}) gives the
 * Habit tools one when the registry has a Google connection; the habit package itself knows nothing of Google.
 */
@FunctionalInterface
public interface GoogleAccount {
    /**
     * The account's address, as Google gives it; asked once per credential (Gmail's users.getProfile, 1 quota unit)
     * and remembered by the connection.
     *
     * @throws dev.agenttools.tool.ToolException UNAUTHENTICATED without a credential, or what asking Google met
     * @throws InterruptedException              when the call is cancelled
     */
    String address(Params params, Deadline deadline) throws InterruptedException;
}
