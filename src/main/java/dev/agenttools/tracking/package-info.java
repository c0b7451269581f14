/**
 * Call tracking, internal but for {@link dev.agenttools.tracking.TrackingSettings} and
 * {@link dev.agenttools.tracking.CallRecorder}, which are published: every call recorded off the caller's path (the
 * registry's listener), SQLite or DynamoDB sinks, the one-shot spool, the long-running processes' call journal
 * (a record survives SIGKILL: {@code Journal}, {@code DeadJournals}) and the statistics {@code agent-tools stats} shows. Imports {@code tool} and {@code store}.
 */
package dev.agenttools.tracking;
