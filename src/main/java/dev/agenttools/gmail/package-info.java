/**
 * The Gmail tools (list_emails, search_emails, get_email), internal: {@link dev.agenttools.gmail.GmailTools}
 * registers them on a registry and the front door is the only caller; only
 * {@link dev.agenttools.gmail.GmailSettings} is published. Holds the list-then-fetch flow, the Gmail calls, the
 * MIME and body decoding. Imports {@code tool}, {@code google} and {@code mailindex}.
 */
package dev.agenttools.gmail;
