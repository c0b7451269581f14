package dev.agenttools.gmail;

import java.util.List;

/**
 * A list or search answer: emails in Gmail's order (newest first).
 *
 * @param nextPageToken pass as {@code page_token} for the next page; null on the last page
 * @param skipped       messages that were listed but deleted before they could be fetched
 */
public record EmailList(List<EmailSummary> emails, String nextPageToken, int skipped) {
}
