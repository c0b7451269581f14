/**
 * The emulated Gmail v1 API: the mailbox (messages, threads, labels, history ids) and where it comes from (the seeded
 * generator, an mbox such as Google Takeout's, or a folder of .eml files), MIME parsing into Gmail's message parts,
 * the search query language, and the resources that answer users.messages, threads, labels, history and getProfile.
 * Internal to the emulator, not API: its few public types are for {@code Emulator} (which loads the mailbox) and the
 * front (which routes to {@code GmailApi}).
 */
package dev.agenttools.emulator.gmail;
