/**
 * How agent-tools keeps its local SQLite files (the call store of {@code tracking}, the mail index of
 * {@code mailindex}): in an owner-only folder others may not write ({@link dev.agenttools.store.PrivateFolder}), never
 * through a symbolic link, with a rollback journal and no memory mapping, a damaged file told apart from a busy one and
 * set aside, never deleted ({@link dev.agenttools.store.SqliteStore}). Internal plumbing shared by those two packages,
 * not part of the API: it imports nothing else of ours.
 */
package dev.agenttools.store;
