/**
 * The command line, internal: one picocli command per mode; the composition root and the only place with
 * {@code System.exit}. Nothing imports it.
 */
package dev.agenttools.cli;
