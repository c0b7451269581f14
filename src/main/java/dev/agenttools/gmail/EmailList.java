package dev.agenttools.gmail;

import java.util.List;

/**
 * A list or search answer: emails in Gmail's order (newest first).
 *
 * @param nextPageToken pass as {@code page_token} for the next page; null on the last page
 * @param skipped       messages that were listed but deleted before they could be fetched
 * @param errors        one per email in {@code emails} that could not be fetched or decoded whole, in the order of
 *                      {@code emails}; null (left out) when there are none
 */
record EmailList(List<EmailSummary> emails, String nextPageToken, int skipped, List<MessageError> errors) {
    public EmailList {
        emails = List.copyOf(emails);
        errors = errors == null || errors.isEmpty() ? null : List.copyOf(errors);
    }
}
