/**
 * The local mail index: a SQLite file of the message summaries list_emails and search_emails have seen, per account,
 * with the historyId each is synced to, so that a list asked again costs one round trip
 * ({@link dev.agenttools.mailindex.MailIndex}); the one index a Gmail service keeps open and what is done when it is
 * damaged, replaced or failing ({@link dev.agenttools.mailindex.OpenIndex}); its settings and what
 * {@code agent-tools cache} shows. It keeps a summary as the JSON its caller wrote and knows nothing of Gmail's
 * records; its failures are {@link dev.agenttools.mailindex.MailIndexException}s. Internal, not part of the API:
 * {@code gmail} and the command line use it; it imports only {@code store} and {@code tool}.
 */
package dev.agenttools.mailindex;
